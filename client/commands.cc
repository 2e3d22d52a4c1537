#include "client/commands.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

namespace {

// The index of `word` among the choices of `algorithm`'s parameter `param`, from the server's
// list of algorithms; throws UsageError naming what is known.
double ChoiceIndex(Context& ctx, const std::string& algorithm, const std::string& param,
                   const std::string& word) {
  if (algorithm.empty()) {
    throw UsageError(absl::StrCat("--param ", param, "=", word,
                                  ": a named choice needs --algorithm (or --policy)"));
  }
  const resched::v1::ListAlgorithmsResponse list = ctx.Call(
      &resched::v1::Resched::StubInterface::ListAlgorithms, resched::v1::ListAlgorithmsRequest());
  for (const resched::v1::AlgorithmInfo& info : list.algorithms()) {
    if (info.name() != algorithm) continue;
    for (const resched::v1::AlgorithmParam& p : info.params()) {
      if (p.name() != param) continue;
      for (int i = 0; i < p.choices_size(); ++i) {
        if (p.choices(i) == word) return i;
      }
      if (p.choices().empty()) {
        throw UsageError(
            absl::StrCat("--param ", param, "=", word, ": \"", word, "\" is not a number"));
      }
      throw UsageError(absl::StrCat("--param ", param, "=", word, ": expected one of ",
                                    absl::StrJoin(p.choices(), ", ")));
    }
  }
  throw UsageError(absl::StrCat("--param ", param, "=", word, ": '", algorithm,
                                "' has no parameter '", param,
                                "' with named choices (see 'resched algorithms')"));
}

}  // namespace

void ParseParams(Context& ctx, const ParsedArgs& args, resched::v1::AlgorithmSpec* spec) {
  for (const std::string& p : args.All("param")) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError(absl::StrCat("--param ", p, ": expected NAME=VALUE, e.g. rho=0.5"));
    }
    const std::string name = p.substr(0, eq);
    const std::string value = p.substr(eq + 1);
    double number = 0;
    (*spec->mutable_params())[name] =
        absl::SimpleAtod(value, &number) ? number : ChoiceIndex(ctx, spec->name(), name, value);
  }
}

resched::v1::JobEventKind EventKindArg(absl::string_view value) {
  const std::string kind = absl::AsciiStrToLower(value);
  if (kind == "started") return resched::v1::STARTED;
  if (kind == "finished") return resched::v1::FINISHED_EVENT;
  if (kind == "failed") return resched::v1::FAILED_EVENT;
  throw UsageError(absl::StrCat("\"", value, "\": expected started, finished or failed"));
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
