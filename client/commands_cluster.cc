// cluster create | list | get | delete
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/commands.h"
#include "client/render.h"

namespace resched::cli {
namespace {

using Stub = resched::v1::Resched::StubInterface;

constexpr absl::string_view kCreateUsage =
    R"(usage: resched cluster create NAME (--processors N | --group NAME:COUNT[:SPEED] ...) [flags]
       resched cluster create -f FILE [NAME] [flags]
Creates a cluster.
  --processors N            a homogeneous cluster of N processors
  --group NAME:COUNT:SPEED  a group of COUNT processors of relative SPEED (default 1); repeatable
  --clock wall|simulated    wall (default) or simulated (starts at the epoch, moved by
                            'clock advance')
  --policy NAME             the online policy (default conservative; see 'resched algorithms')
  --param NAME=VALUE        a parameter of the policy; repeatable
  --replan-every DUR        replan the queued jobs every DUR (at least 1s): a simulated cluster
                            as its clock passes, a wall one on the server's timer; a plan is
                            applied only when strictly better
  --replan-algorithm NAME   the offline planner of the periodic Replan (default mrt)
  --replan-objective OBJ    makespan, weighted, stretch or bicriteria (default: bicriteria for
                            bicriteria, else makespan)
  -f FILE                   a ClusterSpec in JSON or YAML ("-": stdin); flags override it
  --request-id ID           makes a retry safe
)";
constexpr absl::string_view kListUsage = R"(usage: resched cluster list
Lists the clusters.
)";
constexpr absl::string_view kGetUsage = R"(usage: resched cluster get NAME
Shows a cluster.
)";
constexpr absl::string_view kDeleteUsage = R"(usage: resched cluster delete NAME [--force]
Deletes a cluster.
  --force   even with queued or running jobs
)";

resched::v1::ProcessorGroup ParseGroup(const std::string& value) {
  std::vector<std::string> parts = absl::StrSplit(value, ':');
  if (parts.size() < 2 || parts.size() > 3) {
    throw UsageError(
        absl::StrCat("--group ", value, ": expected NAME:COUNT[:SPEED], e.g. fat:16:2"));
  }
  resched::v1::ProcessorGroup g;
  g.set_name(parts[0]);
  g.set_count(IntFlag("group", parts[1]));
  if (parts.size() == 3) g.set_speed(DoubleFlag("group", parts[2]));
  return g;
}

int Create(Context& ctx, const ParsedArgs& args) {
  resched::v1::CreateClusterRequest request;
  auto* spec = request.mutable_spec();
  if (auto file = args.Get("file")) Context::ReadMessageFile(*file, spec);
  if (!args.positional().empty()) spec->set_name(args.positional()[0]);
  if (spec->name().empty()) throw UsageError("the cluster needs a NAME");
  if (args.Has("processors") && args.Has("group")) {
    throw UsageError("give either --processors or --group, not both");
  }
  if (auto p = args.Get("processors")) {
    spec->clear_groups();
    spec->set_processors(IntFlag("processors", *p));
  }
  if (args.Has("group")) {
    spec->clear_processors();
    spec->clear_groups();
    for (const std::string& g : args.All("group")) *spec->add_groups() = ParseGroup(g);
  }
  if (spec->processors() == 0 && spec->groups_size() == 0) {
    throw UsageError("give the size: --processors N or --group NAME:COUNT:SPEED");
  }
  if (auto clock = args.Get("clock")) {
    std::string c = absl::AsciiStrToLower(*clock);
    if (c == "wall") {
      spec->set_clock(resched::v1::WALL);
    } else if (c == "simulated" || c == "sim") {
      spec->set_clock(resched::v1::SIMULATED);
    } else {
      throw UsageError(absl::StrCat("--clock ", *clock, ": expected wall or simulated"));
    }
  }
  if (auto policy = args.Get("policy")) spec->mutable_policy()->set_name(*policy);
  ParseParams(ctx, args, spec->mutable_policy());
  if (auto every = args.Get("replan-every")) {
    *spec->mutable_replan_every() =
        ToProtoDuration(Context::ParseDurationFlag("replan-every", *every));
  }
  if (auto algorithm = args.Get("replan-algorithm")) {
    spec->mutable_replan_algorithm()->set_name(*algorithm);
  }
  if (auto objective = args.Get("replan-objective")) {
    spec->set_replan_objective(ObjectiveFlag("replan-objective", *objective));
  }
  request.set_request_id(args.GetOr("request-id", ""));

  resched::v1::Cluster cluster = ctx.Call(&Stub::CreateCluster, request);
  if (ctx.json) {
    ctx.PrintJson(cluster);
  } else {
    ctx.out << "created cluster " << cluster.spec().name() << "\n" << RenderClusterDetails(cluster);
  }
  return 0;
}

int List(Context& ctx, const ParsedArgs&) {
  resched::v1::ListClustersResponse response =
      ctx.Call(&Stub::ListClusters, resched::v1::ListClustersRequest());
  if (ctx.json) {
    ctx.PrintJson(response);
  } else {
    ctx.out << RenderClusterTable(Pointers(response.clusters()));
  }
  return 0;
}

int Get(Context& ctx, const ParsedArgs& args) {
  resched::v1::GetClusterRequest request;
  request.set_name(args.positional()[0]);
  resched::v1::Cluster cluster = ctx.Call(&Stub::GetCluster, request);
  if (ctx.json) {
    ctx.PrintJson(cluster);
  } else {
    ctx.out << RenderClusterDetails(cluster);
  }
  return 0;
}

int Delete(Context& ctx, const ParsedArgs& args) {
  resched::v1::DeleteClusterRequest request;
  request.set_name(args.positional()[0]);
  request.set_force(args.Has("force"));
  resched::v1::DeleteClusterResponse response = ctx.Call(&Stub::DeleteCluster, request);
  if (ctx.json) {
    ctx.PrintJson(response);
  } else {
    ctx.out << "deleted cluster " << request.name() << "\n";
  }
  return 0;
}

}  // namespace

void AddClusterCommands(std::vector<Command>& commands) {
  commands.push_back({"cluster",
                      "create",
                      kCreateUsage,
                      {{"processors"},
                       {"group", 0, true, true},
                       {"clock"},
                       {"policy"},
                       {"param", 0, true, true},
                       {"replan-every"},
                       {"replan-algorithm"},
                       {"replan-objective"},
                       {"file", 'f'},
                       {"request-id"}},
                      0,
                      1,
                      Create});
  commands.push_back({"cluster", "list", kListUsage, {}, 0, 0, List});
  commands.push_back({"cluster", "get", kGetUsage, {}, 1, 1, Get});
  commands.push_back({"cluster", "delete", kDeleteUsage, {{"force", 0, false}}, 1, 1, Delete});
}

}  // namespace resched::cli
