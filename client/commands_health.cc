// health
#include <chrono>

#include "client/commands.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace resched::cli {
namespace {

namespace health = ::grpc::health::v1;

constexpr absl::string_view kHealthUsage = R"(usage: resched health [--service NAME]
Asks the server's standard gRPC health service (grpc.health.v1.Health/Check) whether it serves:
prints SERVING and exits 0, else prints the status it answered and exits 1. Made for container
health checks and Kubernetes probes.
  --service NAME   one service's status (e.g. resched.v1.Resched); default: the whole server
)";

int Health(Context& ctx, const ParsedArgs& args) {
  std::unique_ptr<health::Health::Stub> stub = health::Health::NewStub(ctx.channel);
  health::HealthCheckRequest request;
  request.set_service(args.GetOr("service", ""));
  grpc::ClientContext call;
  ctx.PrepareCall(call);
  health::HealthCheckResponse response;
  if (grpc::Status status = stub->Check(&call, request, &response); !status.ok()) {
    throw RpcError(std::move(status));
  }
  if (ctx.json) {
    ctx.PrintJson(response);
  } else {
    ctx.out << health::HealthCheckResponse::ServingStatus_Name(response.status()) << "\n";
  }
  return response.status() == health::HealthCheckResponse::SERVING ? 0 : 1;
}

}  // namespace

void AddHealthCommands(std::vector<Command>& commands) {
  commands.push_back({"health", "", kHealthUsage, {{"service"}}, 0, 0, Health});
}

}  // namespace resched::cli
