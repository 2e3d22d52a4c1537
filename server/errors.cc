#include "server/errors.h"

#include <memory>

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

constexpr char kRetryInfoUrl[] = "type.googleapis.com/google.rpc.RetryInfo";

}  // namespace

absl::Status WithRetryDelay(absl::Status status, absl::Duration delay) {
  google::rpc::RetryInfo retry;
  const absl::Duration rounded = absl::Ceil(delay, absl::Milliseconds(1));
  retry.mutable_retry_delay()->set_seconds(absl::ToInt64Seconds(rounded));
  retry.mutable_retry_delay()->set_nanos(static_cast<std::int32_t>(
      absl::ToInt64Nanoseconds(rounded - absl::Seconds(absl::ToInt64Seconds(rounded)))));
  status.SetPayload(kRetryInfoUrl, absl::Cord(retry.SerializeAsString()));
  return status;
}

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
  if (absl::optional<absl::Cord> retry = status.GetPayload(kRetryInfoUrl)) {
    google::protobuf::Any* detail = rich.add_details();
    detail->set_type_url(kRetryInfoUrl);
    detail->set_value(std::string(*retry));
  }
  if (rich.details_size() == 0) return grpc::Status(code, message);
  return grpc::Status(code, message, rich.SerializeAsString());
}

grpc::Status Replayed(const std::string& request_id, const google::protobuf::Message& first) {
  // The details travel in a trailer, and gRPC clients refuse metadata above 8 KiB by default: a
  // larger first answer keeps its scalar fields (ids, times) and leaves its lists out.
  constexpr std::size_t kMaxDetailBytes = 4096;
  std::unique_ptr<google::protobuf::Message> attached(first.New());
  attached->CopyFrom(first);
  std::string left_out;
  if (first.ByteSizeLong() > kMaxDetailBytes) {
    const google::protobuf::Descriptor* descriptor = attached->GetDescriptor();
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const google::protobuf::FieldDescriptor* field = descriptor->field(i);
      if (!field->is_repeated()) continue;
      if (attached->GetReflection()->FieldSize(*attached, field) == 0) continue;
      attached->GetReflection()->ClearField(attached.get(), field);
      absl::StrAppend(&left_out, left_out.empty() ? "" : ", ", field->name());
    }
  }
  std::string message = absl::StrCat("request_id '", request_id,
                                     "' was already applied; the first answer is in the status "
                                     "details");
  if (!left_out.empty()) {
    absl::StrAppend(&message, " without its ", left_out,
                    " (too large for a status detail; the Get and List calls show them)");
  }
  google::rpc::Status rich;
  rich.set_code(grpc::StatusCode::ALREADY_EXISTS);
  rich.set_message(message);
  rich.add_details()->PackFrom(*attached);
  return grpc::Status(grpc::StatusCode::ALREADY_EXISTS, message, rich.SerializeAsString());
}

}  // namespace resched::server
