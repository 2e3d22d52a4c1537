// The one registry of algorithm names used by the API, the CLI and the experiments
// (DESIGN.md, "Rules"). Algorithms not built yet are listed with `implemented = false`:
// choosing one answers UNIMPLEMENTED with a message naming what is missing.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/online/policy.h"

namespace resched {

enum class AlgorithmKind { kPolicy, kPlanner, kDagPlanner };

struct ParamInfo {
  std::string name;
  std::string description;
  double default_value = 0;
  double min = 0;
  double max = 0;
};

using AlgorithmParams = std::map<std::string, double>;

// Builds a policy from its parameters, already checked against its ParamInfo ranges; a
// parameter left out takes its default (ParamValue).
using PolicyFactory = std::function<std::unique_ptr<OnlinePolicy>(const AlgorithmParams&)>;

struct AlgorithmInfo {
  std::string name;
  AlgorithmKind kind = AlgorithmKind::kPolicy;
  std::string description;  // one line
  std::string paper;        // paper and section
  std::vector<ParamInfo> params;
  // Set for implemented online policies.
  PolicyFactory make_policy;
  // Set for implemented planners, which core/dag (DAG planners) dispatches by name.
  bool built = false;

  bool implemented() const { return built || static_cast<bool>(make_policy); }
};

const std::vector<AlgorithmInfo>& AlgorithmRegistry();
const AlgorithmInfo* FindAlgorithm(std::string_view name);

// Checks that `name` is a registered algorithm of `kind`, that it is implemented, and that
// every parameter is known and within range. Errors: INVALID_ARGUMENT naming `field` and the
// limit, UNIMPLEMENTED for a registered algorithm not built yet.
absl::Status CheckAlgorithm(std::string_view field, std::string_view name, AlgorithmKind kind,
                            const AlgorithmParams& params);

absl::StatusOr<std::unique_ptr<OnlinePolicy>> MakePolicy(std::string_view name,
                                                         const AlgorithmParams& params);

const char* AlgorithmKindName(AlgorithmKind kind);

// The value of parameter `name` for algorithm `algorithm`: from `params`, else its default.
double ParamValue(std::string_view algorithm, const AlgorithmParams& params,
                  const std::string& name);

}  // namespace resched
