// What a cluster's change costs its watch feed (server/app/schedule_feed.h): the change's events
// kept for streams that resume and pushed to every watcher, with no watcher, one and ten. The
// events are built in the loop, as the cluster builds them for each change.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "bench/job_event.h"
#include "server/app/schedule_feed.h"

namespace {

namespace pb = ::resched::v1;
using resched::server::ScheduleFeed;
using resched::server::ScheduleSink;
using resched::server::SharedEvent;

// A stream's backlog whose reader keeps up: the last events held, the older ones gone.
class KeepingSink : public ScheduleSink {
 public:
  void Push(const SharedEvent& event) override {
    held_.push_back(event);
    if (held_.size() > kHeld) held_.pop_front();
  }
  void End(const absl::Status& /*status*/) override {}
  bool Closed() const override { return false; }

 private:
  static constexpr std::size_t kHeld = 64;
  std::deque<SharedEvent> held_;
};

// range(0): watchers; range(1): events a change publishes.
void BM_PublishChange(benchmark::State& state) {
  constexpr std::size_t kRecentEventsKept = 2048;  // a cluster's (server/app/cluster_state.h)
  ScheduleFeed feed(kRecentEventsKept);
  for (std::int64_t i = 0; i < state.range(0); ++i) {
    feed.Subscribe(std::make_shared<KeepingSink>(), 0);
  }
  const auto per_change = static_cast<int>(state.range(1));
  int sequence = 1;
  for (auto _ : state) {
    std::vector<pb::ScheduleEvent> change;
    change.reserve(static_cast<std::size_t>(per_change));
    for (int i = 0; i < per_change; ++i) change.push_back(resched::bench::JobEvent(sequence++));
    feed.Publish(std::move(change), /*lsn=*/0, /*durable=*/true);
  }
  state.SetItemsProcessed(state.iterations() * per_change);
}
BENCHMARK(BM_PublishChange)
    ->ArgNames({"watchers", "events"})
    ->Args({0, 2})
    ->Args({1, 2})
    ->Args({10, 2})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
