// Spans (OpenTelemetry's data model, https://opentelemetry.io/docs/specs/otel/trace/api/): what
// a call's server span and its children record, and the span a thread is working under.
//
// A call is traced only when it is sampled; then Dispatch makes its server span the current one
// on the worker thread, and every ScopedSpan opened on that thread becomes its child. Unsampled
// calls have no current span and a ScopedSpan costs a thread-local read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "server/trace/trace_context.h"

namespace resched::server::trace {

enum class SpanKind { kInternal = 1, kServer = 2 };         // OTLP's SpanKind numbers
enum class SpanStatus { kUnset = 0, kOk = 1, kError = 2 };  // OTLP's StatusCode numbers

using AttributeValue = std::variant<std::string, std::int64_t, double, bool>;
using Attributes = std::vector<std::pair<std::string, AttributeValue>>;

struct SpanData {
  TraceId trace_id{};
  SpanId span_id{};
  SpanId parent_span_id{};  // all zeros: a root span
  std::string name;
  SpanKind kind = SpanKind::kInternal;
  std::int64_t start_unix_nanos = 0;
  std::int64_t end_unix_nanos = 0;
  Attributes attributes;
  SpanStatus status = SpanStatus::kUnset;
  std::string status_message;
};

class Tracer;

// A span being recorded; ends (and goes to its tracer) at End or destruction. Used by one
// thread at a time.
class Span {
 public:
  Span(Tracer* tracer, SpanData data);
  ~Span() { End(); }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

  void SetAttribute(std::string key, AttributeValue value);
  void SetError(std::string message);
  void End();
  SpanContext context() const { return {data_.trace_id, data_.span_id, true}; }
  Tracer* tracer() const { return tracer_; }

 private:
  Tracer* tracer_;
  SpanData data_;
  bool ended_ = false;
};

// The span the calling thread works under, or null.
Span* CurrentSpan();
// Nanoseconds since the Unix epoch.
std::int64_t UnixNanosNow();

// Makes `span` the thread's current span until destroyed (a call's server span on its worker).
class CurrentSpanScope {
 public:
  explicit CurrentSpanScope(Span* span);
  ~CurrentSpanScope();
  CurrentSpanScope(const CurrentSpanScope&) = delete;
  CurrentSpanScope& operator=(const CurrentSpanScope&) = delete;

 private:
  Span* previous_;
};

// A child of the current span, current itself until it ends; nothing when no span is current.
class ScopedSpan {
 public:
  explicit ScopedSpan(absl::string_view name, Attributes attributes = {});
  ~ScopedSpan() { End(); }
  ScopedSpan(const ScopedSpan&) = delete;
  ScopedSpan& operator=(const ScopedSpan&) = delete;

  // False when nothing is recorded: callers skip computing attributes.
  bool recording() const { return span_ != nullptr; }
  void SetAttribute(std::string key, AttributeValue value);
  // Marks the span failed when `ok` is false, with `message`.
  void SetResult(bool ok, absl::string_view message);
  // Ends it early and makes its parent current again.
  void End();

 private:
  Span* parent_ = nullptr;
  std::unique_ptr<Span> span_;
};

// True when the calling thread works under a sampled span.
inline bool Recording() { return CurrentSpan() != nullptr; }

}  // namespace resched::server::trace
