#include "server/rpc/to_grpc.h"

#include <string>
#include <string_view>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace resched::server {
namespace {

// Core and boundary messages start with the field path: "job.model.amdahl.alpha must be ...".
std::string FieldOf(std::string_view message) {
  const size_t end = message.find_first_of(" :");
  return std::string(message.substr(0, end));
}

}  // namespace

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const auto code = static_cast<grpc::StatusCode>(status.code());
  const std::string message(status.message());
  google::rpc::Status rich;
  rich.set_code(static_cast<int>(code));
  rich.set_message(message);
  if (status.code() == absl::StatusCode::kInvalidArgument) {
    google::rpc::BadRequest bad_request;
    auto* violation = bad_request.add_field_violations();
    violation->set_field(FieldOf(message));
    violation->set_description(message);
    rich.add_details()->PackFrom(bad_request);
  }
  status.ForEachPayload([&rich](absl::string_view type_url, const absl::Cord& payload) {
    google::protobuf::Any* detail = rich.add_details();
    detail->set_type_url(std::string(type_url));
    detail->set_value(std::string(payload));
  });
  if (rich.details_size() == 0) return grpc::Status(code, message);
  return grpc::Status(code, message, rich.SerializeAsString());
}

}  // namespace resched::server
