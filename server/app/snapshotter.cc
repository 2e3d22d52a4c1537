#include "server/app/snapshotter.h"

#include <chrono>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/resched/snapshot_convert.h"
#include "server/base/log.h"

namespace resched::server {

pb::ClusterSnapshot EncodeSnapshot(const ClusterImage& image) {
  pb::ClusterSnapshot out;
  *out.mutable_creation() = image.creation;
  out.set_next_sequence(image.next_sequence);
  for (const auto& [id, entry] : image.replies) {
    pb::SnapshotReply* reply = out.add_replies();
    reply->set_request_id(id);
    reply->set_method(entry.method);
    reply->set_reply(entry.reply);
  }
  *out.mutable_plan() = ToSnapshot(image.plan);
  return out;
}

Snapshotter::Snapshotter(Journal* journal, std::function<void(bool written)> on_done)
    : journal_(journal), on_done_(std::move(on_done)) {
  thread_ = std::thread([this] { Loop(); });
}

Snapshotter::~Snapshotter() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  work_.notify_all();
  thread_.join();
}

void Snapshotter::Submit(ClusterImage image) {
  {
    MutexLock lock(&mu_);
    queue_.push_back(std::move(image));
  }
  work_.notify_one();
}

void Snapshotter::Flush() {
  MutexLock lock(&mu_);
  while (!queue_.empty() || busy_) mu_.Wait(idle_);
}

std::int64_t Snapshotter::written() const {
  MutexLock lock(&mu_);
  return written_;
}

std::int64_t Snapshotter::dropped() const {
  MutexLock lock(&mu_);
  return dropped_;
}

bool Snapshotter::Write(const ClusterImage& image) {
  // The snapshot replaces records: the one it was taken after must be on disk first.
  if (!journal_->WaitDurable(image.lsn).ok()) return false;
  const auto started = std::chrono::steady_clock::now();
  const std::string payload = EncodeSnapshot(image).SerializeAsString();
  const absl::Status written = journal_->WriteSnapshot(image.cluster, image.lsn, payload);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  // One line per snapshot: rare (thousands of changes apart), and what an operator looks for
  // when start-up time or disk use surprises.
  const LogFields fields = {{"cluster", image.cluster},
                            {"lsn", absl::StrCat(image.lsn)},
                            {"jobs", absl::StrCat(image.plan.jobs.size())},
                            {"bytes", absl::StrCat(payload.size())},
                            {"ms", absl::StrFormat("%.1f", ms)}};
  if (written.ok()) {
    Log(LogLevel::kInfo, "snapshot",
        absl::StrFormat("snapshot of cluster '%s' after LSN %d: %d jobs, %d bytes, %.1f ms; its "
                        "earlier records are dropped",
                        image.cluster, image.lsn, image.plan.jobs.size(), payload.size(), ms),
        fields);
  } else {
    Log(LogLevel::kWarning, "snapshot_failed",
        absl::StrCat("snapshot of cluster '", image.cluster, "' not written: ", written.message()),
        fields);
  }
  return written.ok();
}

void Snapshotter::Loop() {
  while (true) {
    ClusterImage image;
    {
      MutexLock lock(&mu_);
      while (queue_.empty() && !stopping_) mu_.Wait(work_);
      if (stopping_) {
        for (const ClusterImage& dropped : queue_) dropped.in_flight->store(false);
        queue_.clear();
        busy_ = false;
        idle_.notify_all();
        return;
      }
      image = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    const bool written = Write(image);
    image.in_flight->store(false);
    if (on_done_) on_done_(written);
    {
      MutexLock lock(&mu_);
      if (written) {
        ++written_;
      } else {
        ++dropped_;
      }
      busy_ = false;
    }
    idle_.notify_all();
  }
}

}  // namespace resched::server
