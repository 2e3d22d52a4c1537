#include "server/base/status_details.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "google/rpc/error_details.pb.h"

namespace resched::server {
namespace {

// The type URL google.protobuf.Any gives `message`, which clients unpack the detail by.
std::string TypeUrlOf(const google::protobuf::Message& message) {
  return absl::StrCat("type.googleapis.com/", message.GetDescriptor()->full_name());
}

}  // namespace

absl::Status WithRetryDelay(absl::Status status, absl::Duration delay) {
  google::rpc::RetryInfo retry;
  const absl::Duration rounded = absl::Ceil(delay, absl::Milliseconds(1));
  retry.mutable_retry_delay()->set_seconds(absl::ToInt64Seconds(rounded));
  retry.mutable_retry_delay()->set_nanos(static_cast<std::int32_t>(
      absl::ToInt64Nanoseconds(rounded - absl::Seconds(absl::ToInt64Seconds(rounded)))));
  status.SetPayload(TypeUrlOf(retry), absl::Cord(retry.SerializeAsString()));
  return status;
}

absl::Status WithErrorInfo(absl::Status status, const std::string& reason,
                           const std::map<std::string, std::string>& metadata) {
  google::rpc::ErrorInfo info;
  info.set_reason(reason);
  info.set_domain("resched.v1");
  for (const auto& [key, value] : metadata) (*info.mutable_metadata())[key] = value;
  status.SetPayload(TypeUrlOf(info), absl::Cord(info.SerializeAsString()));
  return status;
}

absl::Status Replayed(const std::string& request_id, const google::protobuf::Message& first) {
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
  absl::Status status = absl::AlreadyExistsError(message);
  status.SetPayload(TypeUrlOf(*attached), absl::Cord(attached->SerializeAsString()));
  return status;
}

}  // namespace resched::server
