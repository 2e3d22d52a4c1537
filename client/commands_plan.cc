// algorithms, replan (the dag commands are in commands_dag.cc)
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/commands.h"
#include "client/gantt.h"
#include "client/render.h"
#include "client/replan_render.h"
#include "client/table.h"

namespace resched::cli {
namespace {

using Stub = resched::v1::Resched::StubInterface;

constexpr absl::string_view kAlgorithmsUsage = R"(usage: resched algorithms
Lists the algorithms: online policies (cluster create --policy), offline planners (replan)
and DAG planners (dag reserve, dag query-deadline).
)";
constexpr absl::string_view kReplanUsage =
    R"(usage: resched replan --algorithm NAME [--objective OBJ] [--dry-run] [--force] [flags]
Re-optimizes the queued jobs with an offline planner: the figures before and after, the lower
bounds of the objective, the jobs that move, and the Gantt chart after. A plan worse on the
objective than the current schedule changes nothing unless --force.
  --algorithm NAME    an offline planner, e.g. mrt, bicriteria
  --param NAME=VALUE  a parameter of the algorithm; repeatable
  --objective OBJ     makespan, weighted (completion), stretch (max stretch) or bicriteria
                      (makespan and weighted); default: bicriteria for bicriteria, else makespan
  --cluster NAME      the cluster (default "default")
  --dry-run           show what the plan would do; change nothing
  --force             apply the plan even when it is worse on the objective
  --width COLS        width of the chart (default 80)
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
  Table t({"NAME", "KIND", "PARAMS", "DESCRIPTION"});
  for (const auto& a : response.algorithms()) {
    std::vector<std::string> params;
    for (const auto& p : a.params()) {
      const auto index = static_cast<int>(p.default_value());
      // A choice shows its default's name and the names it takes: fallback=widest(none|...).
      params.push_back(p.choices().empty() || index < 0 || index >= p.choices_size()
                           ? absl::StrCat(p.name(), "=", p.default_value())
                           : absl::StrCat(p.name(), "=", p.choices(index), "(",
                                          absl::StrJoin(p.choices(), "|"), ")"));
    }
    t.AddRow({a.name(), KindName(a.kind()), params.empty() ? "-" : absl::StrJoin(params, ","),
              a.description()});
  }
  ctx.out << t.Render();
  return 0;
}

resched::v1::AlgorithmSpec AlgorithmFlags(Context& ctx, const ParsedArgs& args) {
  auto name = args.Get("algorithm");
  if (!name) throw UsageError("--algorithm is required (see 'resched algorithms')");
  resched::v1::AlgorithmSpec spec;
  spec.set_name(*name);
  ParseParams(ctx, args, &spec);
  return spec;
}

int Replan(Context& ctx, const ParsedArgs& args) {
  resched::v1::ReplanRequest request;
  request.set_cluster(ClusterFlag(args));
  *request.mutable_algorithm() = AlgorithmFlags(ctx, args);
  if (auto o = args.Get("objective")) request.set_objective(ObjectiveFlag("objective", *o));
  GanttOptions options;
  if (auto w = args.Get("width")) {
    options.width = IntFlag("width", *w);
    if (options.width < 30 || options.width > 10000)
      throw UsageError("--width: between 30 and 10000");
  }
  request.set_dry_run(args.Has("dry-run"));
  request.set_force(args.Has("force"));
  request.set_request_id(args.GetOr("request-id", ""));
  resched::v1::ReplanResponse response = ctx.Call(&Stub::Replan, request);
  if (ctx.json) {
    ctx.PrintJson(response);
    return 0;
  }
  options.style = ctx.StyleOf(request.cluster());
  ctx.out << RenderReplanFigures(response, options.style);
  if (response.moves_size() > 0) {
    ctx.out << "\n" << RenderJobMoves(response, options.style);
  }
  // The schedule after: as it is when applied; for a dry run or a refused plan, with the moved
  // jobs drawn where the plan puts them.
  resched::v1::GetScheduleRequest window;
  window.set_cluster(request.cluster());
  resched::v1::Schedule schedule = ctx.Call(&Stub::GetSchedule, window);
  if (!response.applied()) PutPlannedAllocations(response, schedule);
  ctx.out << "\n" << RenderGantt(schedule, options);
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
                       {"force", 0, false},
                       {"width"},
                       {"request-id"}},
                      0,
                      0,
                      Replan});
}

}  // namespace resched::cli
