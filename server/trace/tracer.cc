#include "server/trace/tracer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/base/log.h"

namespace resched::server::trace {

Tracer::Tracer(TracerOptions options, std::unique_ptr<SpanExporter> exporter,
               TraceCounters counters)
    : options_(options), exporter_(std::move(exporter)), counters_(std::move(counters)) {
  thread_ = std::thread([this] { ExportLoop(); });
}

Tracer::~Tracer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool Tracer::SampledByRatio(const TraceId& trace_id) const {
  if (options_.sample_ratio >= 1.0) return true;
  if (options_.sample_ratio <= 0.0) return false;
  // The trace id's last 8 bytes as a number, against the ratio's share of their range.
  std::uint64_t low = 0;
  for (int i = 8; i < 16; ++i) low = (low << 8) | trace_id[i];
  const auto bound = static_cast<std::uint64_t>(
      std::ldexp(options_.sample_ratio, std::numeric_limits<std::uint64_t>::digits));
  return low < bound;
}

std::optional<TraceId> Tracer::Sample(const std::optional<SpanContext>& caller) const {
  if (caller) return caller->sampled ? std::optional<TraceId>(caller->trace_id) : std::nullopt;
  const TraceId trace = NewTraceId();
  return SampledByRatio(trace) ? std::optional<TraceId>(trace) : std::nullopt;
}

std::unique_ptr<Span> Tracer::StartServerSpan(absl::string_view name, const TraceId& trace,
                                              const std::optional<SpanContext>& caller,
                                              Attributes attributes) {
  SpanData data;
  data.trace_id = trace;
  if (caller) data.parent_span_id = caller->span_id;
  data.span_id = NewSpanId();
  data.name = std::string(name);
  data.kind = SpanKind::kServer;
  data.start_unix_nanos = UnixNanosNow();
  data.attributes = std::move(attributes);
  return std::make_unique<Span>(this, std::move(data));
}

std::unique_ptr<Span> Tracer::StartChild(const Span& parent, absl::string_view name,
                                         Attributes attributes) {
  SpanData data;
  const SpanContext context = parent.context();
  data.trace_id = context.trace_id;
  data.parent_span_id = context.span_id;
  data.span_id = NewSpanId();
  data.name = std::string(name);
  data.start_unix_nanos = UnixNanosNow();
  data.attributes = std::move(attributes);
  return std::make_unique<Span>(this, std::move(data));
}

void Tracer::Enqueue(SpanData span) {
  bool full = false;
  bool batch_ready = false;
  {
    std::lock_guard lock(mu_);
    full = queue_.size() >= options_.max_queue;
    if (!full) {
      queue_.push_back(std::move(span));
      ++accepted_;
      batch_ready = queue_.size() >= options_.max_batch;
    }
  }
  if (full && counters_.dropped) counters_.dropped(1);
  if (batch_ready) wake_.notify_one();
}

void Tracer::Flush() {
  std::unique_lock lock(mu_);
  const std::int64_t target = accepted_;
  flush_target_ = std::max(flush_target_, target);
  wake_.notify_one();
  done_.wait(lock, [&] { return settled_ >= target; });
}

void Tracer::ExportLoop() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait_for(lock, options_.batch_delay, [&] {
      return stopping_ || queue_.size() >= options_.max_batch || settled_ < flush_target_;
    });
    if (queue_.empty()) {
      if (stopping_) return;
      continue;
    }
    const std::size_t n = std::min(queue_.size(), options_.max_batch);
    std::vector<SpanData> batch;
    batch.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    lock.unlock();
    const absl::Status exported = exporter_->Export(batch);
    if (exported.ok()) {
      if (counters_.exported) counters_.exported(static_cast<std::int64_t>(n));
    } else if (counters_.dropped) {
      counters_.dropped(static_cast<std::int64_t>(n));
    }
    lock.lock();
    settled_ += static_cast<std::int64_t>(n);
    if (!exported.ok() && !failing_) {
      Log(LogLevel::kWarning, "trace_export_failed",
          absl::StrCat("trace export failed, spans are dropped until it works again: ",
                       exported.message()));
    } else if (exported.ok() && failing_) {
      Log(LogLevel::kInfo, "trace_export_recovered", "trace export works again");
    }
    failing_ = !exported.ok();
    // Stopping after a failed export: the rest would wait for the same collector.
    if (stopping_ && failing_) {
      const auto rest = static_cast<std::int64_t>(queue_.size());
      queue_.clear();
      settled_ += rest;
      if (rest > 0 && counters_.dropped) counters_.dropped(rest);
    }
    done_.notify_all();
  }
}

}  // namespace resched::server::trace
