#include "client/commands.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace resched::cli {

const std::vector<Command>& AllCommands() {
  static const std::vector<Command>* commands = [] {
    auto* all = new std::vector<Command>;
    AddClusterCommands(*all);
    AddJobCommands(*all);
    AddReservationCommands(*all);
    AddScheduleCommands(*all);
    AddPlanCommands(*all);
    AddDagCommands(*all);
    AddTraceCommands(*all);
    AddHealthCommands(*all);
    return all;
  }();
  return *commands;
}

std::string ClusterFlag(const ParsedArgs& args) { return args.GetOr("cluster", "default"); }

int32_t IntFlag(absl::string_view flag, absl::string_view value) {
  int32_t v = 0;
  if (!absl::SimpleAtoi(value, &v)) {
    throw UsageError(absl::StrCat("--", flag, ": \"", value, "\" is not an integer"));
  }
  return v;
}

double DoubleFlag(absl::string_view flag, absl::string_view value) {
  double v = 0;
  if (!absl::SimpleAtod(value, &v)) {
    throw UsageError(absl::StrCat("--", flag, ": \"", value, "\" is not a number"));
  }
  return v;
}

void ParseParams(const ParsedArgs& args, google::protobuf::Map<std::string, double>* params) {
  for (const std::string& p : args.All("param")) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError(absl::StrCat("--param ", p, ": expected NAME=VALUE, e.g. rho=0.5"));
    }
    (*params)[p.substr(0, eq)] = DoubleFlag("param", p.substr(eq + 1));
  }
}

resched::v1::ReplanObjective ObjectiveFlag(absl::string_view flag, absl::string_view value) {
  const std::string objective = absl::AsciiStrToLower(value);
  if (objective == "makespan") return resched::v1::MAKESPAN;
  if (objective == "weighted" || objective == "weighted_completion") {
    return resched::v1::WEIGHTED_COMPLETION;
  }
  if (objective == "stretch" || objective == "max_stretch") return resched::v1::MAX_STRETCH;
  if (objective == "bicriteria") return resched::v1::BICRITERIA;
  throw UsageError(
      absl::StrCat("--", flag, " ", value, ": expected makespan, weighted, stretch or bicriteria"));
}

}  // namespace resched::cli
