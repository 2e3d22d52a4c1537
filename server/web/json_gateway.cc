#include "server/web/json_gateway.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/rpc/call_peer.h"
#include "transport/metadata_value.h"

namespace resched::server::web {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

const FieldDescriptor* FieldNamed(const Descriptor& type, const std::string& name) {
  if (const FieldDescriptor* field = type.FindFieldByName(name)) return field;
  for (int i = 0; i < type.field_count(); ++i) {
    if (type.field(i)->json_name() == name) return type.field(i);
  }
  return nullptr;
}

// Only the message types whose JSON mapping is a string can come from a query parameter.
bool TakesAString(const FieldDescriptor& field) {
  if (field.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return true;
  const std::string& type = field.message_type()->full_name();
  return type == "google.protobuf.Timestamp" || type == "google.protobuf.Duration";
}

absl::Status NotA(const std::string& name, absl::string_view what, const std::string& value) {
  return absl::InvalidArgumentError(
      absl::StrCat("query parameter '", name, "' must be ", what, ", got '", value, "'"));
}

// A parameter's value as the field's JSON mapping takes it, checked here so that the error
// names the parameter and what it takes in words, never protobuf's own types.
absl::StatusOr<nlohmann::json> JsonValue(const FieldDescriptor& field, const std::string& name,
                                         const std::string& value) {
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_BOOL:
      if (value == "true") return nlohmann::json(true);
      if (value == "false") return nlohmann::json(false);
      return NotA(name, "true or false", value);
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64: {
      std::int64_t number = 0;
      const bool narrow = field.cpp_type() == FieldDescriptor::CPPTYPE_INT32;
      if (!absl::SimpleAtoi(value, &number) ||
          (narrow && (number < std::numeric_limits<std::int32_t>::min() ||
                      number > std::numeric_limits<std::int32_t>::max()))) {
        return NotA(name, narrow ? "a whole number of at most 10 digits" : "a whole number", value);
      }
      return nlohmann::json(value);
    }
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64: {
      std::uint64_t number = 0;
      if (!absl::SimpleAtoi(value, &number) ||
          (field.cpp_type() == FieldDescriptor::CPPTYPE_UINT32 &&
           number > std::numeric_limits<std::uint32_t>::max())) {
        return NotA(name, "a whole number not below 0", value);
      }
      return nlohmann::json(value);
    }
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      double number = 0;
      if (!absl::SimpleAtod(value, &number)) return NotA(name, "a number", value);
      return nlohmann::json(value);
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      // Any case, as the CLI takes them (states=queued).
      const std::string upper = absl::AsciiStrToUpper(value);
      if (const auto* known = field.enum_type()->FindValueByName(upper);
          known != nullptr && known->number() != 0) {
        return nlohmann::json(upper);
      }
      std::vector<std::string> names;
      for (int i = 0; i < field.enum_type()->value_count(); ++i) {
        if (field.enum_type()->value(i)->number() == 0) continue;  // the unspecified value
        names.push_back(absl::AsciiStrToLower(field.enum_type()->value(i)->name()));
      }
      return NotA(name, absl::StrCat("one of ", absl::StrJoin(names, ", ")), value);
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      // A time or a duration (TakesAString): parsed alone, so that an error names it.
      std::unique_ptr<google::protobuf::Message> probe(
          google::protobuf::MessageFactory::generated_factory()
              ->GetPrototype(field.message_type())
              ->New());
      const std::string quoted =
          nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      if (!google::protobuf::util::JsonStringToMessage(quoted, probe.get()).ok()) {
        return NotA(name,
                    field.message_type()->full_name() == "google.protobuf.Duration"
                        ? "a duration in seconds such as 90s or 1.5s"
                        : "an RFC 3339 time such as 2026-12-01T08:00:00Z",
                    value);
      }
      return nlohmann::json(value);
    }
    default:
      return nlohmann::json(value);
  }
}

}  // namespace

int HttpStatusOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::ABORTED:
      return 409;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    case grpc::StatusCode::CANCELLED:
      return 499;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}

HttpReply ErrorReply(const grpc::Status& status) {
  const std::string code =
      absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code()));
  nlohmann::json body = {{"code", code}, {"message", status.error_message()}};
  // A message may quote a client's bytes: what is not UTF-8 goes out as U+FFFD, never a throw.
  return {HttpStatusOf(status.error_code()), kJsonContentType,
          body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

HttpReply JsonReply(const google::protobuf::Message& message) {
  HttpReply reply;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = false;
  if (auto status = google::protobuf::util::MessageToJsonString(message, &reply.body, options);
      !status.ok()) {
    return ErrorReply(grpc::Status(
        grpc::StatusCode::INTERNAL,
        absl::StrCat("the answer does not convert to JSON: ", status.message().as_string())));
  }
  return reply;
}

absl::Status MergeQuery(const std::multimap<std::string, std::string>& params,
                        google::protobuf::Message* request) {
  const Descriptor& type = *request->GetDescriptor();
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [name, value] : params) {
    const FieldDescriptor* field = FieldNamed(type, name);
    if (field == nullptr || !TakesAString(*field)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query parameter '", name, "' is not a field of ", type.name(),
          field == nullptr ? "" : " that a query can set (a message other than a time)"));
    }
    nlohmann::json& slot = object[field->json_name()];
    if (!field->is_repeated()) {
      if (!slot.is_null()) {
        return absl::InvalidArgumentError(
            absl::StrCat("query parameter '", name, "' is given twice; it takes one value"));
      }
      absl::StatusOr<nlohmann::json> parsed = JsonValue(*field, name, value);
      if (!parsed.ok()) return parsed.status();
      slot = *std::move(parsed);
      continue;
    }
    if (slot.is_null()) slot = nlohmann::json::array();
    for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      absl::StatusOr<nlohmann::json> parsed = JsonValue(*field, name, std::string(item));
      if (!parsed.ok()) return parsed.status();
      slot.push_back(*std::move(parsed));
    }
  }
  std::unique_ptr<google::protobuf::Message> parsed(request->New());
  const std::string json = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (auto status = google::protobuf::util::JsonStringToMessage(json, parsed.get()); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("query parameters: ", status.message().as_string()));
  }
  request->MergeFrom(*parsed);
  return absl::OkStatus();
}

void ForwardCaller(const WebCaller& caller, grpc::ClientContext* context) {
  // RefuseRequest (server/web/request_guard.h) answered a request with a bad Authorization
  // already; this keeps gRPC's assertion out of reach of any route that forgets to go through it.
  if (!caller.authorization.empty() &&
      transport::CheckMetadataValue("authorization", caller.authorization).ok()) {
    context->AddMetadata("authorization", caller.authorization);
  }
  if (!caller.peer.empty() && transport::CheckMetadataValue(kWebPeerMetadata, caller.peer).ok()) {
    context->AddMetadata(kWebPeerMetadata, caller.peer);
    context->AddMetadata(kWebPeerKeyMetadata, WebPeerKey());
  }
}

}  // namespace resched::server::web
