// dag reserve | query-deadline (alias query) | offers | show | event | release | list

#include <algorithm>
#include <fstream>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "client/commands.h"
#include "client/dag_render.h"
#include "client/render.h"
#include "client/rpc_error.h"
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
constexpr absl::string_view kOffersHead =
    R"(usage: resched dag offers -f FILE [--clusters NAME,NAME...] [--algorithm NAME] [flags]
Where and when can this DAG run soonest: asks every cluster (or those named) for its plan at
once, without reserving anything, and lists them soonest first with the command that takes
one. Taking it commits with query-deadline under the offer's own completion, so an offer
that went stale (the cluster got busier) is refused with nothing reserved.
  -f FILE             a Dag in JSON or YAML, a WfCommons JSON workflow or a Pegasus DAX
                      XML file ("-": stdin); the format is detected
  --format FMT        dag, wfcommons or dax: skip the detection
  --alpha A           Amdahl serial fraction of imported workflow tasks, in [0, 1]
                      (default 0.1)
  --clusters NAMES    the clusters to ask, comma-separated (default: every cluster)
  --algorithm NAME    a DAG planner (default bl_cpar_bd_cpar; see 'resched algorithms')
  --param NAME=VALUE  a parameter of the algorithm; repeatable
)";
constexpr absl::string_view kEventUsage =
    R"(usage: resched dag event ID TASK started|finished|failed [--at TIME] [--cluster NAME]
Reports what the engine running a DAG reservation's task saw: an early end frees the task's
processors from then on, a failure also releases the tasks that depend on it.
  --at TIME           when (default: the cluster's now)
  --request-id ID     makes a retry safe
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

// The planner offers use when none is named: ReserveDAG's default.
constexpr absl::string_view kOfferPlanner = "bl_cpar_bd_cpar";

struct Offer {
  std::string cluster;
  std::optional<resched::v1::ReserveDAGResponse> plan;  // unset: refused
  grpc::Status refusal;
};

int Offers(Context& ctx, const ParsedArgs& args) {
  resched::v1::ReserveDAGRequest request;
  ReadDagRequest(ctx, args, request);
  if (request.algorithm().name().empty()) {
    request.mutable_algorithm()->set_name(std::string(kOfferPlanner));
  }
  request.set_dry_run(true);
  std::vector<std::string> names;
  if (auto listed = args.Get("clusters")) {
    names = absl::StrSplit(*listed, ',', absl::SkipEmpty());
    if (names.empty()) throw UsageError("--clusters: name at least one cluster");
  } else {
    const resched::v1::ListClustersResponse all =
        ctx.Call(&Stub::ListClusters, resched::v1::ListClustersRequest());
    for (const auto& c : all.clusters()) names.push_back(c.spec().name());
  }
  // One dry run per cluster, all at once: the answer takes one round trip.
  std::vector<std::future<Offer>> asked;
  asked.reserve(names.size());
  for (const std::string& name : names) {
    asked.push_back(std::async(std::launch::async, [&ctx, request, name]() mutable {
      request.set_cluster(name);
      Offer offer{name, std::nullopt, grpc::Status::OK};
      try {
        offer.plan = ctx.Call(&Stub::ReserveDAG, request);
      } catch (const RpcError& error) {
        offer.refusal = error.status();
      }
      return offer;
    }));
  }
  std::vector<Offer> offers;
  offers.reserve(asked.size());
  for (auto& answer : asked) offers.push_back(answer.get());
  std::stable_sort(offers.begin(), offers.end(), [](const Offer& a, const Offer& b) {
    if (a.plan.has_value() != b.plan.has_value()) return a.plan.has_value();
    // By turnaround, which clusters on different clocks (SIMULATED ones start at the epoch)
    // measure alike; on WALL clusters it orders as the completion does.
    return a.plan && ToMicros(a.plan->turnaround()) < ToMicros(b.plan->turnaround());
  });
  if (ctx.json) {
    nlohmann::json out = {{"offers", nlohmann::json::array()},
                          {"refusals", nlohmann::json::array()}};
    for (const Offer& o : offers) {
      if (o.plan) {
        out["offers"].push_back({{"cluster", o.cluster},
                                 {"algorithm", request.algorithm().name()},
                                 {"plan", nlohmann::json::parse(AnswerJson(*o.plan, false))}});
      } else {
        out["refusals"].push_back({{"cluster", o.cluster},
                                   {"code", std::string(StatusCodeName(o.refusal.error_code()))},
                                   {"message", o.refusal.error_message()}});
      }
    }
    ctx.out << out.dump(2) << "\n";
    return 0;
  }
  Table table({"CLUSTER", "COMPLETION", ">TURNAROUND", ">CPU HOURS"});
  std::vector<std::string> refused;
  for (const Offer& o : offers) {
    if (!o.plan) {
      refused.push_back(absl::StrCat(o.cluster, ": ", StatusCodeName(o.refusal.error_code()), ": ",
                                     o.refusal.error_message()));
      continue;
    }
    table.AddRow({o.cluster, FormatTime(true, o.plan->completion(), ctx.StyleOf(o.cluster)),
                  o.plan->has_turnaround() ? FormatDuration(ToMicros(o.plan->turnaround())) : "-",
                  absl::StrFormat("%.2f", o.plan->cpu_hours())});
  }
  if (table.rows() > 0) ctx.out << table.Render();
  for (const std::string& line : refused) ctx.out << "refused by " << line << "\n";
  if (table.rows() == 0) return 1;
  const Offer& best = offers.front();
  ctx.out << "\ntake the soonest (refused, nothing reserved, if it went stale):\n"
          << "  resched dag query-deadline -f " << *args.Get("file") << " --cluster "
          << best.cluster << " --algorithm " << request.algorithm().name() << " --deadline @"
          << ToMicros(best.plan->completion()) << "us --commit\n";
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
  if (const std::string states = RenderDagTaskStates(dag, options.style); !states.empty()) {
    ctx.out << "\n" << states;
  }
  return 0;
}

int Event(Context& ctx, const ParsedArgs& args) {
  resched::v1::ReportDagTaskEventRequest request;
  request.set_cluster(ClusterFlag(args));
  request.set_id(args.positional()[0]);
  request.set_task(args.positional()[1]);
  request.set_kind(EventKindArg(args.positional()[2]));
  if (auto t = args.Get("at")) {
    *request.mutable_time() = ToProtoTimestamp(ctx.ParseTimeFlag(request.cluster(), "at", *t));
  }
  request.set_request_id(args.GetOr("request-id", ""));
  const resched::v1::DagReservation dag = ctx.Call(&Stub::ReportDagTaskEvent, request);
  if (ctx.json) {
    ctx.PrintJson(dag);
  } else {
    ctx.out << RenderDagTaskStates(dag, ctx.StyleOf(request.cluster()));
  }
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
  const std::vector<FlagSpec> offers = {
      {"file", 'f'}, {"format"}, {"alpha"}, {"algorithm"}, {"param", 0, true, true}, {"clusters"}};
  commands.push_back({"dag", "reserve", *reserve_usage, reserve, 0, 0, Reserve});
  commands.push_back({"dag", "query-deadline", *query_usage, query, 0, 0, QueryDeadline});
  commands.push_back({"dag", "query", *alias_usage, query, 0, 0, QueryDeadline});
  commands.push_back({"dag", "offers", kOffersHead, offers, 0, 0, Offers});
  commands.push_back({"dag", "show", kShowUsage, {{"cluster"}, {"width"}}, 1, 1, Show});
  commands.push_back(
      {"dag", "event", kEventUsage, {{"cluster"}, {"at"}, {"request-id"}}, 3, 3, Event});
  commands.push_back(
      {"dag", "release", kReleaseUsage, {{"cluster"}, {"request-id"}}, 1, 1, Release});
  commands.push_back({"dag", "list", kListUsage, {{"cluster"}}, 0, 0, List});
}

}  // namespace resched::cli
