// W3C Trace Context (https://www.w3.org/TR/trace-context/): the ids a span carries and the
// `traceparent` header that carries them between processes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace resched::server::trace {

using TraceId = std::array<std::uint8_t, 16>;
using SpanId = std::array<std::uint8_t, 8>;

// Where a span sits in its trace: the caller's span when parsed from a traceparent.
struct SpanContext {
  TraceId trace_id{};
  SpanId span_id{};
  bool sampled = false;
};

// A version-00 traceparent ("00-<32 hex>-<16 hex>-<2 hex>"); nullopt when malformed or when an
// id is all zeros, which the recommendation says to ignore. Later versions are read by their
// version-00 prefix, as the recommendation asks.
std::optional<SpanContext> ParseTraceparent(absl::string_view header);
std::string FormatTraceparent(const SpanContext& context);

// Random, never all zeros.
TraceId NewTraceId();
SpanId NewSpanId();

// Lower-case hex, the form OTLP/JSON and traceparent use.
std::string ToHex(const TraceId& id);
std::string ToHex(const SpanId& id);
bool IsZero(const SpanId& id);

}  // namespace resched::server::trace
