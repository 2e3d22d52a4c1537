// The OTLP/HTTP JSON encoding of spans (an ExportTraceServiceRequest,
// https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): ids as hex, 64-bit numbers
// as strings, enums as numbers.
#pragma once

#include <string>
#include <vector>

#include "server/trace/span.h"

namespace resched::server::trace {

// One resource (`service_name`) and one instrumentation scope ("resched") holding `spans`.
std::string EncodeOtlpJson(const std::vector<SpanData>& spans, const std::string& service_name);

}  // namespace resched::server::trace
