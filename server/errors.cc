#include "server/errors.h"

#include "absl/strings/str_cat.h"
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
  if (status.code() != absl::StatusCode::kInvalidArgument) return grpc::Status(code, message);
  google::rpc::BadRequest bad_request;
  auto* violation = bad_request.add_field_violations();
  violation->set_field(FieldOf(message));
  violation->set_description(message);
  google::rpc::Status rich;
  rich.set_code(static_cast<int>(code));
  rich.set_message(message);
  rich.add_details()->PackFrom(bad_request);
  return grpc::Status(code, message, rich.SerializeAsString());
}

grpc::Status Replayed(const std::string& request_id, const google::protobuf::Message& first) {
  const std::string message = absl::StrCat("request_id '", request_id,
                                           "' was already applied; the first answer is in "
                                           "the status details");
  google::rpc::Status rich;
  rich.set_code(grpc::StatusCode::ALREADY_EXISTS);
  rich.set_message(message);
  rich.add_details()->PackFrom(first);
  return grpc::Status(grpc::StatusCode::ALREADY_EXISTS, message, rich.SerializeAsString());
}

}  // namespace resched::server
