// The server's tracer: decides which calls are traced (sampling), hands out their spans, and
// exports ended spans in batches from a background thread through a bounded queue, so that a
// collector that is down or slow never slows or fails a call: what does not fit is dropped and
// counted (docs/observability.md).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "server/trace/span.h"
#include "server/trace/trace_context.h"

namespace resched::server::trace {

// Where batches of ended spans go (OtlpHttpExporter; tests may record them).
class SpanExporter {
 public:
  virtual ~SpanExporter() = default;
  virtual absl::Status Export(const std::vector<SpanData>& spans) = 0;
};

struct TracerOptions {
  // Share of the calls without a sampled caller that are traced, in [0, 1]: decided from the
  // trace id (TraceIdRatioBased), so every process sampling that trace keeps the same traces.
  // A call whose traceparent says sampled or not follows its caller (ParentBased).
  double sample_ratio = 1.0;
  std::size_t max_queue = 2048;                 // ended spans waiting for export; more are dropped
  std::size_t max_batch = 512;                  // spans per export request
  std::chrono::milliseconds batch_delay{1000};  // longest a span waits for a full batch
};

// How the tracer reports what became of spans (metrics).
struct TraceCounters {
  std::function<void(std::int64_t)> exported;
  std::function<void(std::int64_t)> dropped;
};

class Tracer {
 public:
  Tracer(TracerOptions options, std::unique_ptr<SpanExporter> exporter, TraceCounters counters);
  // Exports what is queued (dropping it after a failed export), then stops the thread.
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The trace of a call's server span when the call is sampled (the caller's, or a new one),
  // else nullopt; decided before anything about the span is built.
  std::optional<TraceId> Sample(const std::optional<SpanContext>& caller) const;
  // A call's server span in `trace` (from Sample), a child of `caller` when the call carried a
  // traceparent.
  std::unique_ptr<Span> StartServerSpan(absl::string_view name, const TraceId& trace,
                                        const std::optional<SpanContext>& caller,
                                        Attributes attributes);
  std::unique_ptr<Span> StartChild(const Span& parent, absl::string_view name,
                                   Attributes attributes);
  // Takes an ended span; drops it (counted) when max_queue spans are already waiting.
  void Enqueue(SpanData span);
  // Waits until every span enqueued so far is exported or dropped (tests, shutdown).
  void Flush();

  // Whether a call without a sampled caller and with this trace id is traced.
  bool SampledByRatio(const TraceId& trace_id) const;

 private:
  void ExportLoop();

  const TracerOptions options_;
  const std::unique_ptr<SpanExporter> exporter_;
  const TraceCounters counters_;
  std::mutex mu_;
  std::condition_variable wake_;  // the export thread: spans, a flush or stop
  std::condition_variable done_;  // Flush callers: spans settled
  std::deque<SpanData> queue_;
  std::int64_t accepted_ = 0;  // spans queued since start
  std::int64_t settled_ = 0;   // of those, exported or dropped
  std::int64_t flush_target_ = 0;
  bool stopping_ = false;
  bool failing_ = false;  // the last export failed (logged once per failing stretch)
  std::thread thread_;
};

}  // namespace resched::server::trace
