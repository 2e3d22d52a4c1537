// dag reserve | query-deadline (alias query) | show | release | list
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/commands.h"
#include "client/dag_render.h"
#include "client/render.h"
#include "client/table.h"
#include "proto/resched/dag_import.h"

namespace resched::cli {
namespace {

using Stub = resched::v1::Resched::StubInterface;
using api::DagFormat;
using api::DetectDagFormat;
using api::ParseDagText;

// The flags shared by reserve and query-deadline, after each command's own lines.
constexpr absl::string_view kInputFlags =
    R"(  -f FILE             a Dag in JSON or YAML, a WfCommons JSON workflow or a Pegasus DAX
                      XML file ("-": stdin); the format is detected
  --format FMT        dag, wfcommons or dax: skip the detection
  --alpha A           Amdahl serial fraction of imported workflow tasks, in [0, 1]
                      (default 0.1)
  --param NAME=VALUE  a parameter of the algorithm; repeatable
  --release TIME      earliest start (default: now)
  --label TEXT        kept with the reservation
  --cluster NAME      the cluster (default "default")
  --request-id ID     makes a retry safe
  --width COLS        width of the Gantt chart (default 80)
)";
constexpr absl::string_view kReserveHead =
    R"(usage: resched dag reserve -f FILE [--algorithm NAME] [--dry-run] [flags]
Co-reserves a whole DAG of moldable tasks (all or nothing); prints the placements, a Gantt
chart of the plan and the DAG reservation's id.
  --algorithm NAME    a DAG planner (default bl_cpar_bd_cpar; see 'resched algorithms')
  --dry-run           show the plan; reserve nothing
)";
constexpr absl::string_view kQueryFlags =
    R"(  --deadline TIME     the deadline (default: ask for the tightest one)
  --algorithm NAME    a DAG planner (default: dl_rc_cpar with --deadline, dl_bd_cpar
                      without; see 'resched algorithms')
  --commit            reserve the plan when feasible
)";
constexpr absl::string_view kQueryHead =
    R"(usage: resched dag query-deadline -f FILE [--deadline TIME] [--commit] [flags]
Can the DAG finish by the deadline, with which plan; without --deadline: what is the
tightest deadline, and its plan.
)";
constexpr absl::string_view kQueryAliasHead =
    R"(usage: resched dag query -f FILE [--deadline TIME] [--commit] [flags]
The same as 'dag query-deadline'.
)";
constexpr absl::string_view kShowUsage =
    R"(usage: resched dag show ID [--cluster NAME] [--width COLS]
Shows a committed DAG reservation: its placements and a Gantt chart of its tasks.
)";
constexpr absl::string_view kReleaseUsage =
    R"(usage: resched dag release ID [--cluster NAME] [--request-id ID]
Releases a DAG reservation as a whole: all its tasks' processors are freed.
)";
constexpr absl::string_view kListUsage = R"(usage: resched dag list [--cluster NAME]
Lists the committed DAG reservations of a cluster.
)";

std::string ReadText(const std::string& path) {
  std::stringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CliError(absl::StrCat(path, ": cannot open the file"));
    text << in.rdbuf();
  }
  return text.str();
}

resched::v1::Dag ReadDag(const ParsedArgs& args) {
  auto file = args.Get("file");
  if (!file) throw UsageError("-f FILE is required: a Dag (JSON or YAML), WfCommons or DAX file");
  DagFormat format = DagFormat::kAuto;
  if (auto f = args.Get("format")) {
    absl::StatusOr<DagFormat> parsed = api::ParseDagFormat(*f);
    if (!parsed.ok()) throw UsageError(absl::StrCat("--format ", parsed.status().message()));
    format = *parsed;
  }
  resched::WorkflowImportOptions options;
  if (auto a = args.Get("alpha")) {
    options.alpha = DoubleFlag("alpha", *a);
    if (!(options.alpha >= 0 && options.alpha <= 1))
      throw UsageError(absl::StrCat("--alpha: must be in [0, 1], got ", *a));
  }
  std::string text = ReadText(*file);
  if (format == DagFormat::kAuto) format = DetectDagFormat(*file, text);
  if (format == DagFormat::kDag && args.Has("alpha")) {
    // A Dag file carries its own models: silently ignoring --alpha would mislead.
    throw UsageError(absl::StrCat("--alpha applies to WfCommons and DAX workflows only; ", *file,
                                  " was read as a resched Dag (see --format)"));
  }
  absl::StatusOr<resched::v1::Dag> dag = ParseDagText(*file, text, format, options);
  if (!dag.ok()) throw CliError(absl::StrCat(*file, ": ", dag.status().message()));
  return *std::move(dag);
}

// --algorithm and --param; an unset name leaves the choice to the server's default.
resched::v1::AlgorithmSpec AlgorithmFlags(Context& ctx, const ParsedArgs& args) {
  resched::v1::AlgorithmSpec spec;
  spec.set_name(args.GetOr("algorithm", ""));
  ParseParams(ctx, args, &spec);
  return spec;
}

GanttOptions ChartOptions(Context& ctx, const ParsedArgs& args, const std::string& cluster) {
  GanttOptions options;
  if (auto w = args.Get("width")) {
    options.width = IntFlag("width", *w);
    if (options.width < 30 || options.width > 10000)
      throw UsageError("--width: between 30 and 10000");
  }
  options.style = ctx.StyleOf(cluster);
  return options;
}

// The cluster's size for the chart; 0 (inferred from the plan) when it cannot be fetched.
int32_t CapacityOf(Context& ctx, const std::string& cluster) {
  try {
    return ctx.Cluster(cluster).capacity();
  } catch (const RpcError&) {
    return 0;
  }
}

// The fields ReserveDAG and QueryDeadline share: cluster, algorithm, DAG, --release (an unset
// release means now: never set it otherwise), request id and label.
template <typename Request>
void ReadDagRequest(Context& ctx, const ParsedArgs& args, Request& request) {
  request.set_cluster(ClusterFlag(args));
  *request.mutable_algorithm() = AlgorithmFlags(ctx, args);
  *request.mutable_dag() = ReadDag(args);
  if (auto t = args.Get("release")) {
    *request.mutable_release() =
        ToProtoTimestamp(ctx.ParseTimeFlag(request.cluster(), "release", *t));
  }
  request.set_request_id(args.GetOr("request-id", ""));
  request.set_label(args.GetOr("label", ""));
}

int Reserve(Context& ctx, const ParsedArgs& args) {
  resched::v1::ReserveDAGRequest request;
  ReadDagRequest(ctx, args, request);
  GanttOptions options = ctx.json ? GanttOptions{} : ChartOptions(ctx, args, request.cluster());
  request.set_dry_run(args.Has("dry-run"));
  resched::v1::ReserveDAGResponse response = ctx.Call(&Stub::ReserveDAG, request);
  if (ctx.json) {
    ctx.PrintJson(response);
    return 0;
  }
  if (request.dry_run()) ctx.out << "dry run: nothing was changed\n";
  ctx.out << RenderDagPlan(request.cluster(), CapacityOf(ctx, request.cluster()), response.dag_id(),
                           response.placements(), options)
          << "\n"
          << RenderKeyValues(
                 {{"completion",
                   FormatTime(response.has_completion(), response.completion(), options.style)},
                  {"turnaround", response.has_turnaround()
                                     ? FormatDuration(ToMicros(response.turnaround()))
                                     : "-"},
                  {"cpu hours", absl::StrFormat("%.2f", response.cpu_hours())},
                  {"dag id", response.dag_id().empty() ? "dry run" : response.dag_id()}});
  return 0;
}

int QueryDeadline(Context& ctx, const ParsedArgs& args) {
  resched::v1::QueryDeadlineRequest request;
  ReadDagRequest(ctx, args, request);
  GanttOptions options = ctx.json ? GanttOptions{} : ChartOptions(ctx, args, request.cluster());
  if (auto deadline = args.Get("deadline")) {
    *request.mutable_deadline() =
        ToProtoTimestamp(ctx.ParseTimeFlag(request.cluster(), "deadline", *deadline));
  }
  request.set_commit(args.Has("commit"));
  resched::v1::QueryDeadlineResponse response = ctx.Call(&Stub::QueryDeadline, request);
  if (ctx.json) {
    ctx.PrintJson(response);
    return 0;
  }
  const TimeStyle style = options.style;
  std::vector<std::pair<std::string, std::string>> summary = {
      {"feasible",
       response.feasible() ? (response.dag_id().empty() ? "yes" : "yes (reserved)") : "no"},
      {"deadline", request.has_deadline() ? FormatTime(ToMicros(request.deadline()), style)
                                          : "- (asked for the tightest)"}};
  if (response.has_tightest_deadline()) {
    summary.emplace_back("tightest deadline",
                         FormatTime(ToMicros(response.tightest_deadline()), style));
  }
  if (response.placements_size() > 0) {
    summary.emplace_back("completion",
                         FormatTime(response.has_completion(), response.completion(), style));
    summary.emplace_back("cpu hours", absl::StrFormat("%.2f", response.cpu_hours()));
  }
  if (response.plan_from_tightest_search()) {
    summary.emplace_back("plan", "the tightest-deadline search's (none found for the deadline)");
  }
  if (response.fallback_tasks() > 0) {
    summary.emplace_back("fallback tasks", absl::StrCat(response.fallback_tasks()));
  }
  summary.emplace_back("dag id", response.dag_id().empty() ? "not committed" : response.dag_id());
  if (response.placements_size() > 0) {
    ctx.out << RenderDagPlan(request.cluster(), CapacityOf(ctx, request.cluster()),
                             response.dag_id(), response.placements(), options)
            << "\n";
  }
  ctx.out << RenderKeyValues(summary);
  return 0;
}

int Show(Context& ctx, const ParsedArgs& args) {
  resched::v1::GetDagReservationRequest request;
  request.set_cluster(ClusterFlag(args));
  request.set_id(args.positional()[0]);
  GanttOptions options = ctx.json ? GanttOptions{} : ChartOptions(ctx, args, request.cluster());
  resched::v1::DagReservation dag = ctx.Call(&Stub::GetDagReservation, request);
  if (ctx.json) {
    ctx.PrintJson(dag);
    return 0;
  }
  ctx.out << RenderDagDetails(dag, options.style) << "\n"
          << RenderDagPlan(request.cluster(), CapacityOf(ctx, request.cluster()), dag.id(),
                           dag.placements(), options);
  return 0;
}

int Release(Context& ctx, const ParsedArgs& args) {
  resched::v1::ReleaseDAGRequest request;
  request.set_cluster(ClusterFlag(args));
  request.set_id(args.positional()[0]);
  request.set_request_id(args.GetOr("request-id", ""));
  resched::v1::ReleaseDAGResponse response = ctx.Call(&Stub::ReleaseDAG, request);
  if (ctx.json) {
    ctx.PrintJson(response);
  } else {
    ctx.out << "released DAG reservation " << request.id() << "\n";
  }
  return 0;
}

int List(Context& ctx, const ParsedArgs& args) {
  resched::v1::ListDagReservationsRequest request;
  request.set_cluster(ClusterFlag(args));
  resched::v1::ListDagReservationsResponse response = ctx.Call(&Stub::ListDagReservations, request);
  if (ctx.json) {
    ctx.PrintJson(response);
    return 0;
  }
  ctx.out << RenderDagList(Pointers(response.dags()), ctx.StyleOf(request.cluster()));
  return 0;
}

}  // namespace

void AddDagCommands(std::vector<Command>& commands) {
  const std::vector<FlagSpec> input = {
      {"file", 'f'}, {"format"}, {"alpha"},   {"algorithm"},  {"param", 0, true, true},
      {"release"},   {"label"},  {"cluster"}, {"request-id"}, {"width"}};
  std::vector<FlagSpec> reserve = input;
  reserve.push_back({"dry-run", 0, false});
  std::vector<FlagSpec> query = input;
  query.push_back({"deadline"});
  query.push_back({"commit", 0, false});
  // Command::usage is a view: the composed texts live as long as the program.
  static const auto* reserve_usage = new std::string(absl::StrCat(kReserveHead, kInputFlags));
  static const auto* query_usage =
      new std::string(absl::StrCat(kQueryHead, kQueryFlags, kInputFlags));
  static const auto* alias_usage =
      new std::string(absl::StrCat(kQueryAliasHead, kQueryFlags, kInputFlags));
  commands.push_back({"dag", "reserve", *reserve_usage, reserve, 0, 0, Reserve});
  commands.push_back({"dag", "query-deadline", *query_usage, query, 0, 0, QueryDeadline});
  commands.push_back({"dag", "query", *alias_usage, query, 0, 0, QueryDeadline});
  commands.push_back({"dag", "show", kShowUsage, {{"cluster"}, {"width"}}, 1, 1, Show});
  commands.push_back(
      {"dag", "release", kReleaseUsage, {{"cluster"}, {"request-id"}}, 1, 1, Release});
  commands.push_back({"dag", "list", kListUsage, {{"cluster"}}, 0, 0, List});
}

}  // namespace resched::cli
