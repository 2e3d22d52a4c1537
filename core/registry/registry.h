// The one registry of algorithm names used by the API, the CLI and the experiments: every
// online policy, offline planner and DAG planner is built here, by name, from checked
// parameters.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dag/dag_planner.h"
#include "core/offline/offline_planner.h"
#include "core/online/policy.h"
#include "core/registry/params.h"

namespace resched {

enum class AlgorithmKind { kPolicy, kPlanner, kDagPlanner };

// The defaults the API uses when a request names no algorithm or parameter.
inline constexpr std::string_view kDefaultReserveDagPlanner = "bl_cpar_bd_cpar";
// QueryDeadline with a deadline: the planner that meets K with the fewest CPU-hours.
inline constexpr std::string_view kDefaultDeadlinePlanner = "dl_rc_cpar";
// QueryDeadline without one: the planner with the tightest deadlines (docs/experiments.md).
inline constexpr std::string_view kDefaultTightestDeadlinePlanner = "dl_bd_cpar";

// Factories get the caller's parameters once CheckAlgorithm accepted them, and fill the
// algorithm's typed options from them (core/registry/param_binding.h), the defaults where they
// are left out.
using PolicyFactory = std::function<std::unique_ptr<OnlinePolicy>(const AlgorithmParams&)>;
using DagPlannerFactory = std::function<std::unique_ptr<DagPlanner>(const AlgorithmParams&)>;
using OfflinePlannerFactory =
    std::function<std::unique_ptr<OfflinePlanner>(const AlgorithmParams&)>;

struct AlgorithmInfo {
  std::string name;
  AlgorithmKind kind = AlgorithmKind::kPolicy;
  std::string description;  // one line
  std::string paper;        // paper and section
  std::vector<ParamInfo> params;
  // The one matching `kind` is set.
  PolicyFactory make_policy;
  DagPlannerFactory make_dag_planner;
  OfflinePlannerFactory make_offline_planner;
};

const std::vector<AlgorithmInfo>& AlgorithmRegistry();
const AlgorithmInfo* FindAlgorithm(std::string_view name);

// Checks that `name` is a registered algorithm of `kind` and that every parameter is known and
// within range. Errors: INVALID_ARGUMENT naming `field` and the limit.
absl::Status CheckAlgorithm(std::string_view field, std::string_view name, AlgorithmKind kind,
                            const AlgorithmParams& params);

// The algorithm `name` of the registry, built with `params` after CheckAlgorithm (errors name
// the field "policy" or "algorithm").
absl::StatusOr<std::unique_ptr<OnlinePolicy>> MakePolicy(std::string_view name,
                                                         const AlgorithmParams& params);
absl::StatusOr<std::unique_ptr<DagPlanner>> MakeDagPlanner(std::string_view name,
                                                           const AlgorithmParams& params);
absl::StatusOr<std::unique_ptr<OfflinePlanner>> MakeOfflinePlanner(std::string_view name,
                                                                   const AlgorithmParams& params);

const char* AlgorithmKindName(AlgorithmKind kind);

}  // namespace resched
