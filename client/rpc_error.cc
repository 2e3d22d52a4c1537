#include "client/rpc_error.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace resched::cli {

absl::string_view StatusCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    default:
      return "UNKNOWN_CODE";
  }
}

std::string FormatRpcError(const grpc::Status& status, absl::string_view server) {
  std::string out = absl::StrCat("error: ", StatusCodeName(status.error_code()), ": ",
                                 status.error_message(), "\n");
  google::rpc::Status details;
  if (!status.error_details().empty() && details.ParseFromString(status.error_details())) {
    for (const google::protobuf::Any& any : details.details()) {
      google::rpc::BadRequest bad;
      if (!any.Is<google::rpc::BadRequest>() || !any.UnpackTo(&bad)) {
        absl::StrAppend(&out, "  (detail attached: ", any.type_url(), ")\n");
      } else {
        for (const auto& v : bad.field_violations()) {
          // Some servers repeat the field at the front of the description.
          if (v.field().empty() || absl::StartsWith(v.description(), v.field())) {
            absl::StrAppend(&out, "  ", v.description(), "\n");
          } else {
            absl::StrAppend(&out, "  ", v.field(), ": ", v.description(), "\n");
          }
        }
      }
    }
  }
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE && !server.empty()) {
    absl::StrAppend(&out, "  (is resched-server running at ", server,
                    "? choose another with --server or RESCHED_SERVER)\n");
  }
  return out;
}

}  // namespace resched::cli
