#include "server/trace/otlp_json.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace resched::server::trace {
namespace {

nlohmann::json Value(const AttributeValue& value) {
  struct Visitor {
    nlohmann::json operator()(const std::string& s) const { return {{"stringValue", s}}; }
    // int64 is a string in the protobuf JSON mapping.
    nlohmann::json operator()(std::int64_t i) const { return {{"intValue", absl::StrCat(i)}}; }
    nlohmann::json operator()(double d) const { return {{"doubleValue", d}}; }
    nlohmann::json operator()(bool b) const { return {{"boolValue", b}}; }
  };
  return std::visit(Visitor{}, value);
}

nlohmann::json Encode(const Attributes& attributes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, value] : attributes)
    out.push_back({{"key", key}, {"value", Value(value)}});
  return out;
}

nlohmann::json Encode(const SpanData& span) {
  nlohmann::json out = {{"traceId", ToHex(span.trace_id)},
                        {"spanId", ToHex(span.span_id)},
                        {"name", span.name},
                        {"kind", static_cast<int>(span.kind)},
                        {"startTimeUnixNano", absl::StrCat(span.start_unix_nanos)},
                        {"endTimeUnixNano", absl::StrCat(span.end_unix_nanos)},
                        {"attributes", Encode(span.attributes)}};
  if (!IsZero(span.parent_span_id)) out["parentSpanId"] = ToHex(span.parent_span_id);
  nlohmann::json status = {{"code", static_cast<int>(span.status)}};
  if (!span.status_message.empty()) status["message"] = span.status_message;
  out["status"] = std::move(status);
  return out;
}

}  // namespace

std::string EncodeOtlpJson(const std::vector<SpanData>& spans, const std::string& service_name) {
  nlohmann::json encoded = nlohmann::json::array();
  for (const SpanData& span : spans) encoded.push_back(Encode(span));
  nlohmann::json scope_spans = nlohmann::json::object();
  scope_spans["scope"] = {{"name", "resched"}};
  scope_spans["spans"] = std::move(encoded);
  nlohmann::json resource_spans = nlohmann::json::object();
  resource_spans["resource"]["attributes"] =
      Encode(Attributes{{"service.name", AttributeValue(service_name)}});
  resource_spans["scopeSpans"] = nlohmann::json::array({std::move(scope_spans)});
  nlohmann::json request = nlohmann::json::object();
  request["resourceSpans"] = nlohmann::json::array({std::move(resource_spans)});
  // Attributes may quote a client's bytes: what is not UTF-8 goes as U+FFFD, never a throw.
  return request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace resched::server::trace
