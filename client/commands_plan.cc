// algorithms, replan (the dag commands are in commands_dag.cc)
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/commands.h"
#include "client/render.h"
#include "client/table.h"

namespace resched::cli {
namespace {

using Stub = resched::v1::Resched::StubInterface;

constexpr absl::string_view kAlgorithmsUsage = R"(usage: resched algorithms
Lists the algorithms: online policies (cluster create --policy), offline planners (replan)
and DAG planners (dag reserve, dag query-deadline).
)";
constexpr absl::string_view kReplanUsage =
    R"(usage: resched replan --algorithm NAME [--objective makespan|weighted|stretch] [flags]
Re-optimizes the queued jobs with an offline planner.
  --algorithm NAME    an offline planner, e.g. mrt, bicriteria
  --param NAME=VALUE  a parameter of the algorithm; repeatable
  --objective OBJ     makespan, weighted (completion) or stretch (max stretch)
  --cluster NAME      the cluster (default "default")
  --dry-run           show the figures; change nothing
  --request-id ID     makes a retry safe
)";

std::string KindName(resched::v1::AlgorithmInfo::Kind kind) {
  switch (kind) {
    case resched::v1::AlgorithmInfo::POLICY:
      return "policy";
    case resched::v1::AlgorithmInfo::PLANNER:
      return "planner";
    case resched::v1::AlgorithmInfo::DAG_PLANNER:
      return "dag planner";
    default:
      return "-";
  }
}

int Algorithms(Context& ctx, const ParsedArgs&) {
  resched::v1::ListAlgorithmsResponse response =
      ctx.Call(&Stub::ListAlgorithms, resched::v1::ListAlgorithmsRequest());
  if (ctx.json) {
    ctx.PrintJson(response);
    return 0;
  }
  Table t({"NAME", "KIND", "IMPLEMENTED", "PARAMS", "DESCRIPTION"});
  for (const auto& a : response.algorithms()) {
    std::vector<std::string> params;
    for (const auto& p : a.params())
      params.push_back(absl::StrCat(p.name(), "=", p.default_value()));
    t.AddRow({a.name(), KindName(a.kind()), a.implemented() ? "yes" : "no",
              params.empty() ? "-" : absl::StrJoin(params, ","), a.description()});
  }
  ctx.out << t.Render();
  return 0;
}

resched::v1::AlgorithmSpec AlgorithmFlags(const ParsedArgs& args) {
  auto name = args.Get("algorithm");
  if (!name) throw UsageError("--algorithm is required (see 'resched algorithms')");
  resched::v1::AlgorithmSpec spec;
  spec.set_name(*name);
  ParseParams(args, spec.mutable_params());
  return spec;
}

int Replan(Context& ctx, const ParsedArgs& args) {
  resched::v1::ReplanRequest request;
  request.set_cluster(ClusterFlag(args));
  *request.mutable_algorithm() = AlgorithmFlags(args);
  if (auto o = args.Get("objective")) {
    std::string obj = absl::AsciiStrToLower(*o);
    if (obj == "makespan") {
      request.set_objective(resched::v1::MAKESPAN);
    } else if (obj == "weighted" || obj == "weighted_completion") {
      request.set_objective(resched::v1::WEIGHTED_COMPLETION);
    } else if (obj == "stretch" || obj == "max_stretch") {
      request.set_objective(resched::v1::MAX_STRETCH);
    } else {
      throw UsageError(
          absl::StrCat("--objective ", *o, ": expected makespan, weighted or stretch"));
    }
  }
  request.set_dry_run(args.Has("dry-run"));
  request.set_request_id(args.GetOr("request-id", ""));
  resched::v1::ReplanResponse response = ctx.Call(&Stub::Replan, request);
  if (ctx.json) {
    ctx.PrintJson(response);
    return 0;
  }
  TimeStyle style = ctx.StyleOf(request.cluster());
  if (request.dry_run()) ctx.out << "dry run: nothing was changed\n";
  Table t({"", "MAKESPAN", ">WEIGHTED COMPLETION", ">MEAN STRETCH", ">MAX STRETCH"});
  for (const auto& [label, f] :
       {std::pair{"before", &response.before()}, std::pair{"after", &response.after()}}) {
    t.AddRow({label, FormatTime(f->has_makespan(), f->makespan(), style),
              absl::StrFormat("%.6g", f->weighted_completion()),
              absl::StrFormat("%.3f", f->mean_stretch()),
              absl::StrFormat("%.3f", f->max_stretch())});
  }
  ctx.out << t.Render();
  if (response.moved_jobs_size() > 0) {
    ctx.out << "\nmoved " << response.moved_jobs_size() << " job(s):\n"
            << RenderJobTable(Pointers(response.moved_jobs()), style);
  }
  return 0;
}

}  // namespace

void AddPlanCommands(std::vector<Command>& commands) {
  commands.push_back({"algorithms", "", kAlgorithmsUsage, {}, 0, 0, Algorithms});
  commands.push_back({"replan",
                      "",
                      kReplanUsage,
                      {{"algorithm"},
                       {"param", 0, true, true},
                       {"objective"},
                       {"cluster"},
                       {"dry-run", 0, false},
                       {"request-id"}},
                      0,
                      0,
                      Replan});
}

}  // namespace resched::cli
