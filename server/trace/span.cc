#include "server/trace/span.h"

#include <chrono>
#include <memory>

#include "server/trace/tracer.h"

namespace resched::server::trace {
namespace {

thread_local Span* current_span = nullptr;

}  // namespace

std::int64_t UnixNanosNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Span::Span(Tracer* tracer, SpanData data) : tracer_(tracer), data_(std::move(data)) {}

void Span::SetAttribute(std::string key, AttributeValue value) {
  data_.attributes.emplace_back(std::move(key), std::move(value));
}

void Span::SetError(std::string message) {
  data_.status = SpanStatus::kError;
  data_.status_message = std::move(message);
}

void Span::End() {
  if (ended_) return;
  ended_ = true;
  data_.end_unix_nanos = UnixNanosNow();
  tracer_->Enqueue(std::move(data_));
}

Span* CurrentSpan() { return current_span; }

CurrentSpanScope::CurrentSpanScope(Span* span) : previous_(current_span) { current_span = span; }
CurrentSpanScope::~CurrentSpanScope() { current_span = previous_; }

ScopedSpan::ScopedSpan(absl::string_view name, Attributes attributes) : parent_(current_span) {
  if (parent_ == nullptr) return;
  span_ = parent_->tracer()->StartChild(*parent_, name, std::move(attributes));
  current_span = span_.get();
}

void ScopedSpan::SetAttribute(std::string key, AttributeValue value) {
  if (span_) span_->SetAttribute(std::move(key), std::move(value));
}

void ScopedSpan::SetResult(bool ok, absl::string_view message) {
  if (span_ && !ok) span_->SetError(std::string(message));
}

void ScopedSpan::End() {
  if (!span_) return;
  span_->End();
  span_.reset();
  current_span = parent_;
}

}  // namespace resched::server::trace
