// reservation add | remove
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/commands.h"
#include "client/render.h"

namespace resched::cli {
namespace {

using Stub = resched::v1::Resched::StubInterface;

constexpr absl::string_view kAddUsage =
    R"(usage: resched reservation add --processors K --start TIME (--end TIME | --duration DUR) [flags]
Holds K processors over [start, end) for something resched does not schedule.
  --cluster NAME      the cluster (default "default")
  --reason TEXT       e.g. "maintenance"
  --displace-queued   move queued jobs out of the way (else it must fit in free capacity)
  --group INDEX       on processor groups of different speeds: hold processors of this group
                      (its index in the cluster's groups; default: any group)
  --request-id ID     makes a retry safe
)";
constexpr absl::string_view kRemoveUsage =
    R"(usage: resched reservation remove ID [--cluster NAME] [--request-id ID]
Removes a reservation.
)";

int Add(Context& ctx, const ParsedArgs& args) {
  resched::v1::AddReservationRequest request;
  request.set_cluster(ClusterFlag(args));
  auto k = args.Get("processors");
  auto start = args.Get("start");
  if (!k || !start) throw UsageError("--processors and --start are required");
  if (args.Has("end") == args.Has("duration")) throw UsageError("give either --end or --duration");
  request.set_processors(IntFlag("processors", *k));
  int64_t s = ctx.ParseTimeFlag(request.cluster(), "start", *start);
  *request.mutable_start() = ToProtoTimestamp(s);
  if (auto end = args.Get("end")) {
    *request.mutable_end() = ToProtoTimestamp(ctx.ParseTimeFlag(request.cluster(), "end", *end));
  } else {
    *request.mutable_end() =
        ToProtoTimestamp(s + Context::ParseDurationFlag("duration", *args.Get("duration")));
  }
  request.set_reason(args.GetOr("reason", ""));
  request.set_displace_queued(args.Has("displace-queued"));
  if (auto group = args.Get("group")) request.set_group(IntFlag("group", *group));
  request.set_request_id(args.GetOr("request-id", ""));
  resched::v1::Reservation r = ctx.Call(&Stub::AddReservation, request);
  if (ctx.json) {
    ctx.PrintJson(r);
  } else {
    ctx.out << RenderReservationTable({&r}, ctx.StyleOf(request.cluster()));
  }
  return 0;
}

int Remove(Context& ctx, const ParsedArgs& args) {
  resched::v1::RemoveReservationRequest request;
  request.set_cluster(ClusterFlag(args));
  request.set_id(args.positional()[0]);
  request.set_request_id(args.GetOr("request-id", ""));
  resched::v1::RemoveReservationResponse response = ctx.Call(&Stub::RemoveReservation, request);
  if (ctx.json) {
    ctx.PrintJson(response);
  } else {
    ctx.out << "removed reservation " << request.id() << "\n";
  }
  return 0;
}

}  // namespace

void AddReservationCommands(std::vector<Command>& commands) {
  commands.push_back({"reservation",
                      "add",
                      kAddUsage,
                      {{"cluster"},
                       {"processors"},
                       {"start"},
                       {"end"},
                       {"duration"},
                       {"reason"},
                       {"displace-queued", 0, false},
                       {"group"},
                       {"request-id"}},
                      0,
                      0,
                      Add});
  commands.push_back(
      {"reservation", "remove", kRemoveUsage, {{"cluster"}, {"request-id"}}, 1, 1, Remove});
}

}  // namespace resched::cli
