// Writes clusters' snapshots on a background thread (docs/durability.md): a cluster takes the
// image of its state under its lock (ClusterImage, plain values) and goes on; this thread waits
// until the image's record is durable, encodes the image and writes it with the compaction of
// the records it covers. An image whose record failed, or that cannot be written, is dropped: the
// records stay, and the cluster takes another later.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <thread>

#include "resched/v1/snapshot.pb.h"
#include "server/app/cluster_state.h"
#include "server/base/mutex.h"
#include "server/store/journal.h"

namespace resched::server {

// The snapshot message of an image.
pb::ClusterSnapshot EncodeSnapshot(const ClusterImage& image);

class Snapshotter {
 public:
  // `on_done` hears of every image, written or dropped (metrics).
  Snapshotter(Journal* journal, std::function<void(bool written)> on_done);
  // Drops what is still queued (its records are in the journal) and stops the thread.
  ~Snapshotter();
  Snapshotter(const Snapshotter&) = delete;
  Snapshotter& operator=(const Snapshotter&) = delete;

  void Submit(ClusterImage image);
  // Waits until every image submitted so far is written or dropped (tests, benchmarks).
  void Flush();
  std::int64_t written() const;
  std::int64_t dropped() const;

 private:
  void Loop();
  // Returns whether it was written.
  bool Write(const ClusterImage& image);

  Journal* const journal_;
  const std::function<void(bool)> on_done_;
  mutable Mutex mu_;
  std::condition_variable work_;
  std::condition_variable idle_;
  std::deque<ClusterImage> queue_ ABSL_GUARDED_BY(mu_);
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::int64_t written_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace resched::server
