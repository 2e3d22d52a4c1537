// The memory that all WatchSchedule streams together hold in events not yet written (their
// snapshots and backlogs, server/rpc/schedule_watch.h), against ServiceLimits::max_watch_bytes. A
// count of streams bounds that memory only for clusters of a given size: a stream holds its
// cluster's whole snapshot until its reader takes it. This bounds it whatever the sizes.
//
// A snapshot, and an event that takes a stream past its share (the limit divided by the streams
// that may be open), must fit under the limit. Within its share a stream always takes its
// events, so that a reader keeping up is not cut off because others fell behind; the memory held
// is therefore at most the limit plus one share per open stream: twice the limit.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "resched/v1/service.pb.h"

namespace resched::server {

// Also the metric resched_watch_pending_bytes: what the streams hold now.
class WatchBudget : public prometheus::Collectable {
 public:
  WatchBudget(std::size_t max_bytes, int max_streams)
      : max_bytes_(max_bytes),
        share_(max_streams > 0 ? max_bytes / static_cast<std::size_t>(max_streams) : max_bytes) {}
  WatchBudget(const WatchBudget&) = delete;
  WatchBudget& operator=(const WatchBudget&) = delete;

  // What `event` holds while it waits: the message in memory, and the serialized copy gRPC
  // makes of it when its write starts.
  static std::size_t BytesOf(const resched::v1::ScheduleEvent& event) {
    return event.SpaceUsedLong() + event.ByteSizeLong();
  }

  // Takes `bytes` when they fit beside what is held; false (nothing taken) otherwise.
  bool TryTake(std::size_t bytes) {
    std::size_t held = held_.load(std::memory_order_relaxed);
    do {
      if (bytes > max_bytes_ || held > max_bytes_ - bytes) return false;
    } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
    return true;
  }
  // Takes `bytes` even past the limit (an event within a stream's share).
  void Take(std::size_t bytes) { held_.fetch_add(bytes, std::memory_order_relaxed); }
  void Give(std::size_t bytes) { held_.fetch_sub(bytes, std::memory_order_relaxed); }

  std::size_t held() const { return held_.load(std::memory_order_relaxed); }
  std::size_t max_bytes() const { return max_bytes_; }
  // What one stream may hold whatever the others hold.
  std::size_t share() const { return share_; }

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const std::size_t max_bytes_;
  const std::size_t share_;
  std::atomic<std::size_t> held_{0};
};

}  // namespace resched::server
