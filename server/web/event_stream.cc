#include "server/web/event_stream.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "server/rpc/call_peer.h"
#include "server/rpc/to_grpc.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

namespace {

// After a write, a reader that has caught up gathers the events that come for a while and writes
// them at once: one wake-up and one write for several events rather than one each (the kernel's
// part of what a page costs the server). The first event after a quiet spell goes out at once.
// A gathering lasts kGatherLeast; one that ends with events to write (events keep coming) makes
// the next twice as long, up to kGatherMost, and one that ends with none makes it kGatherLeast
// again: at 20 changes a second, one wake-up a second rather than 20, and an event at most 1 s
// late while they keep coming (a wake-up and a write cost the server a third to a half of what a
// submission does, docs/web.md).
constexpr std::chrono::milliseconds kGatherLeast{100};
constexpr std::chrono::milliseconds kGatherMost{1000};
// The most events one write carries: a page that fell behind catches up in writes of this many,
// each converted and sent before the next are taken from the backlog.
constexpr std::size_t kMaxEventsPerWrite = 64;

}  // namespace

EventStream::EventStream(WatchOpener& opener, std::string cluster, const WebCaller& caller,
                         std::chrono::milliseconds heartbeat, EventChunks& chunks,
                         std::int64_t after_sequence)
    : opener_(opener),
      caller_{.authorization = caller.authorization.empty()
                                   ? std::nullopt
                                   : std::optional<std::string>(caller.authorization),
              .peer = WebCallPeer(caller.peer),
              // EventSource sends no headers of its own: no trace, no replica's.
              .traceparent = "",
              .forwarded_by = std::nullopt,
              .no_forward = false,
              .served_here = nullptr},
      heartbeat_(heartbeat),
      chunks_(chunks),
      backlog_(opener.max_backlog(), opener.budget()),
      gather_(kGatherLeast) {
  request_.set_cluster(std::move(cluster));
  request_.set_after_sequence(after_sequence);
}

void EventStream::Open() {
  {
    MutexLock lock(&mu_);
    if (cancelled_) return;  // ended before it began: nothing to open
    if (!changed_.ok()) {
      // Without its eventfd the reader would see events only at each heartbeat.
      ended_ = absl::ResourceExhaustedError(
          "the server has no file descriptor left for this page's event stream; close a page or "
          "retry later");
      return;
    }
  }
  std::unique_ptr<WatchOpener::Lease> lease = opener_.Open(request_, caller_, shared_from_this());
  MutexLock lock(&mu_);
  if (!cancelled_) lease_ = std::move(lease);
}  // a lease of a stream cancelled meanwhile is released here, off the lock

void EventStream::Start(std::optional<pb::ScheduleEvent> first) {
  MutexLock lock(&mu_);
  if (first && !ended_ && !cancelled_) {
    if (absl::Status fits = backlog_.PushFirst(*std::move(first)); !fits.ok()) ended_ = fits;
  }
  started_ = true;
  Wake();
}

void EventStream::Push(const SharedEvent& event) {
  MutexLock lock(&mu_);
  if (ended_ || cancelled_) return;
  if (absl::Status kept = backlog_.Push(event); !kept.ok()) {
    ended_ = kept;
  } else if (std::chrono::steady_clock::now() < gather_until_ && !backlog_.HalfFull()) {
    return;  // the reader takes it when its gathering ends
  }
  Wake();
}

void EventStream::End(const absl::Status& status) {
  MutexLock lock(&mu_);
  if (!ended_) ended_ = status;
  Wake();
}

void EventStream::Wake() {
  if (raised_) return;  // a write to the eventfd is a system call: one per look is enough
  raised_ = true;
  changed_.Raise();
}

bool EventStream::Closed() const {
  MutexLock lock(&mu_);
  return cancelled_ || ended_.has_value();
}

bool EventStream::Next(std::string& chunk, int client_socket) {
  chunk.clear();
  if (end_sent_) return false;
  if (!opened_) {
    opened_ = true;
    Open();
  }
  const auto heartbeat_at = std::chrono::steady_clock::now() + heartbeat_;
  // The events ready now, written at once: one wake-up and one write for a burst of changes.
  std::vector<SharedEvent> events;
  std::optional<absl::Status> ended;
  for (;;) {
    std::chrono::steady_clock::time_point wake_at;
    {
      MutexLock lock(&mu_);
      raised_ = false;  // what raised it until now is seen below
      if (cancelled_) {
        end_sent_ = true;
        return false;
      }
      const auto now = std::chrono::steady_clock::now();
      if (gathering_ && now >= gather_until_) {
        gathering_ = false;
        gather_ = backlog_.empty() ? kGatherLeast : std::min(2 * gather_, kGatherMost);
      }
      if (started_ && !backlog_.empty() &&
          (now >= gather_until_ || ended_ || backlog_.HalfFull())) {
        while (!backlog_.empty() && events.size() < kMaxEventsPerWrite) {
          events.push_back(backlog_.Pop());
        }
        // A reader that has caught up gathers the next events for a while; one behind goes on.
        gathering_ = backlog_.empty();
        gather_until_ = gathering_ ? now + gather_ : now;
        break;
      }
      if (ended_ && backlog_.empty()) {
        ended = ended_;
        break;
      }
      if (now >= heartbeat_at) {
        chunk = ": heartbeat\n\n";  // an SSE comment: EventSource skips it
        return true;
      }
      // While gathering, Push does not wake the reader: it wakes when the gathering ends.
      wake_at = now < gather_until_ ? std::min(heartbeat_at, gather_until_) : heartbeat_at;
    }
    // Off the lock: the cluster's Push raises the signal under it.
    if (changed_.Wait(wake_at - std::chrono::steady_clock::now(), client_socket) ==
        WakeSignal::Woken::kHungUp) {
      Cancel();  // the page left: its stream is freed now
    }
  }
  if (ended) {
    end_sent_ = true;
    chunk = absl::StrCat("event: end\ndata: ", ErrorReply(ToGrpc(*ended)).body, "\n\n");
    return false;
  }
  std::size_t taken = 0;
  for (const SharedEvent& event : events) {
    chunk += *chunks_.Chunk(event);
    taken += event.bytes;
  }
  MutexLock lock(&mu_);
  backlog_.Taken(taken);
  return true;
}

void EventStream::Cancel() {
  std::unique_ptr<WatchOpener::Lease> lease;
  {
    MutexLock lock(&mu_);
    cancelled_ = true;
    backlog_.Drop();
    lease = std::move(lease_);
    Wake();
  }
}  // the lease is released here, off the lock

EventStreams::EventStreams(int total, int per_client)
    : caps_("event streams on this web view", total, per_client,
            "close a page, or use WatchSchedule over gRPC",
            "a client is its bearer token, or its address without one") {}

absl::Status EventStreams::Add(const std::shared_ptr<EventStream>& stream,
                               const std::string& client) {
  if (absl::Status admitted = caps_.Acquire(client); !admitted.ok()) {
    stream->Cancel();
    return admitted;
  }
  MutexLock lock(&mu_);
  if (closed_) stream->Cancel();
  open_.emplace(stream, client);
  return absl::OkStatus();
}

void EventStreams::Remove(const std::shared_ptr<EventStream>& stream) {
  MutexLock lock(&mu_);
  auto it = open_.find(stream);
  if (it == open_.end()) return;
  caps_.Release(it->second);
  open_.erase(it);
}

void EventStreams::CancelAll() {
  MutexLock lock(&mu_);
  closed_ = true;
  for (const auto& [stream, client] : open_) stream->Cancel();
}

}  // namespace resched::server::web
