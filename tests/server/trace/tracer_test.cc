// The tracer with a recording exporter: sampling, parent/child links through the current span,
// the bounded queue (spans dropped and counted, never blocking the caller) and failed exports.
#include "server/trace/tracer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace resched::server::trace {
namespace {

// Keeps what it is given; can be made to fail, or to hold the export thread until released.
class RecordingExporter final : public SpanExporter {
 public:
  absl::Status Export(const std::vector<SpanData>& spans) override {
    std::unique_lock lock(mu_);
    ++calls_;
    released_.wait(lock, [&] { return !holding_; });
    if (failing_) return absl::UnavailableError("collector down");
    spans_.insert(spans_.end(), spans.begin(), spans.end());
    return absl::OkStatus();
  }
  void Hold() {
    std::lock_guard lock(mu_);
    holding_ = true;
  }
  void Release() {
    {
      std::lock_guard lock(mu_);
      holding_ = false;
    }
    released_.notify_all();
  }
  void Fail() {
    std::lock_guard lock(mu_);
    failing_ = true;
  }
  int calls() {
    std::lock_guard lock(mu_);
    return calls_;
  }
  std::vector<SpanData> spans() {
    std::lock_guard lock(mu_);
    return spans_;
  }

 private:
  std::mutex mu_;
  std::condition_variable released_;
  bool holding_ = false;
  bool failing_ = false;
  int calls_ = 0;
  std::vector<SpanData> spans_;
};

struct Fixture {
  explicit Fixture(TracerOptions options = {}) {
    auto owned = std::make_unique<RecordingExporter>();
    exporter = owned.get();
    TraceCounters counters;
    counters.exported = [this](std::int64_t n) { exported += n; };
    counters.dropped = [this](std::int64_t n) { dropped += n; };
    tracer = std::make_unique<Tracer>(options, std::move(owned), counters);
  }
  std::atomic<std::int64_t> exported{0};
  std::atomic<std::int64_t> dropped{0};
  RecordingExporter* exporter = nullptr;
  std::unique_ptr<Tracer> tracer;
};

// A call's server span as the service starts it: null when the call is not sampled.
std::unique_ptr<Span> StartCall(Tracer& tracer, const std::optional<SpanContext>& caller) {
  const std::optional<TraceId> trace = tracer.Sample(caller);
  if (!trace) return nullptr;
  return tracer.StartServerSpan("call", *trace, caller, {});
}

SpanContext Caller(bool sampled) {
  return *ParseTraceparent(sampled ? "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                                   : "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
}

TEST(TracerTest, ChildSpansHangUnderTheCurrentSpanAndContinueTheCallersTrace) {
  Fixture f;
  const SpanContext caller = Caller(true);
  {
    std::unique_ptr<Span> server = StartCall(*f.tracer, caller);
    ASSERT_NE(server, nullptr);
    CurrentSpanScope scope(server.get());
    {
      ScopedSpan outer("outer");
      EXPECT_TRUE(outer.recording());
      ScopedSpan inner("inner", {{"k", std::int64_t{7}}});
      inner.SetResult(false, "went wrong");
    }
    ScopedSpan after("after");  // the current span is the server span again
  }
  EXPECT_FALSE(Recording());  // the scope restored "no span"
  ScopedSpan untraced("untraced");
  EXPECT_FALSE(untraced.recording());
  f.tracer->Flush();

  const std::vector<SpanData> spans = f.exporter->spans();
  ASSERT_EQ(spans.size(), 4u);  // inner, outer, after, call: in the order they ended
  EXPECT_EQ(spans[0].name, "inner");
  EXPECT_EQ(spans[1].name, "outer");
  EXPECT_EQ(spans[2].name, "after");
  EXPECT_EQ(spans[3].name, "call");
  const SpanData& server = spans[3];
  EXPECT_EQ(server.kind, SpanKind::kServer);
  EXPECT_EQ(server.trace_id, caller.trace_id);
  EXPECT_EQ(server.parent_span_id, caller.span_id);
  EXPECT_EQ(spans[1].parent_span_id, server.span_id);
  EXPECT_EQ(spans[0].parent_span_id, spans[1].span_id);
  EXPECT_EQ(spans[2].parent_span_id, server.span_id);
  for (const SpanData& span : spans) {
    EXPECT_EQ(span.trace_id, caller.trace_id);
    EXPECT_LE(span.start_unix_nanos, span.end_unix_nanos);
  }
  EXPECT_EQ(spans[0].status, SpanStatus::kError);
  EXPECT_EQ(spans[0].status_message, "went wrong");
  ASSERT_EQ(spans[0].attributes.size(), 1u);
  EXPECT_EQ(std::get<std::int64_t>(spans[0].attributes[0].second), 7);
  EXPECT_EQ(f.exported.load(), 4);
  EXPECT_EQ(f.dropped.load(), 0);
}

TEST(TracerTest, ACallFollowsItsCallersSamplingDecision) {
  TracerOptions never;
  never.sample_ratio = 0;
  Fixture f(never);
  EXPECT_EQ(StartCall(*f.tracer, std::nullopt), nullptr);
  EXPECT_NE(StartCall(*f.tracer, Caller(true)), nullptr);
  Fixture always;
  EXPECT_EQ(StartCall(*always.tracer, Caller(false)), nullptr);
  EXPECT_NE(StartCall(*always.tracer, std::nullopt), nullptr);
}

TEST(TracerTest, TheRatioKeepsItsShareOfTracesDecidedByTheTraceId) {
  TracerOptions quarter;
  quarter.sample_ratio = 0.25;
  Fixture f(quarter);
  int sampled = 0;
  constexpr int kTraces = 20'000;
  for (int i = 0; i < kTraces; ++i) {
    const TraceId id = NewTraceId();
    const bool decision = f.tracer->SampledByRatio(id);
    EXPECT_EQ(decision, f.tracer->SampledByRatio(id));  // the same trace, the same answer
    sampled += decision ? 1 : 0;
  }
  // Binomial(20000, 0.25): the standard deviation is about 61; 6 of them is 370.
  EXPECT_NEAR(sampled, kTraces * 0.25, 370);
}

TEST(TracerTest, AFullQueueDropsAndCountsSpansWithoutBlocking) {
  TracerOptions small;
  small.max_queue = 4;
  small.max_batch = 2;
  small.batch_delay = std::chrono::hours(1);  // batches leave only when full
  Fixture f(small);
  f.exporter->Hold();
  // The first batch of 2 leaves for the (held) exporter; 4 more fill the queue; the rest drop.
  constexpr int kSpans = 20;
  for (int i = 0; i < kSpans; ++i) {
    StartCall(*f.tracer, std::nullopt)->End();
    if (i == 1) {
      while (f.exporter->calls() == 0) std::this_thread::yield();
    }
  }
  EXPECT_EQ(f.dropped.load(), kSpans - 2 - 4);
  f.exporter->Release();
  f.tracer->Flush();
  EXPECT_EQ(f.exported.load(), 6);
  EXPECT_EQ(f.exporter->spans().size(), 6u);
}

TEST(TracerTest, AFailedExportDropsItsBatchAndCountsIt) {
  Fixture f;
  f.exporter->Fail();
  for (int i = 0; i < 3; ++i) StartCall(*f.tracer, std::nullopt)->End();
  f.tracer->Flush();
  EXPECT_EQ(f.dropped.load(), 3);
  EXPECT_EQ(f.exported.load(), 0);
}

TEST(TracerTest, StoppingExportsWhatIsQueued) {
  Fixture f;
  for (int i = 0; i < 5; ++i) StartCall(*f.tracer, std::nullopt)->End();
  f.tracer.reset();
  EXPECT_EQ(f.exported.load(), 5);
}

}  // namespace
}  // namespace resched::server::trace
