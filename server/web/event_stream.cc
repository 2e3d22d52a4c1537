#include "server/web/event_stream.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "server/rpc/call_peer.h"
#include "server/rpc/to_grpc.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

namespace {

// How often a stream waiting for events asks whether its client is still there.
constexpr std::chrono::milliseconds kClientCheck{250};
// After a write, a reader that has caught up gathers the events that come for this long and
// writes them at once: at 20 changes a second, one wake-up and one write for two or three events
// rather than one each (the kernel's part of what a page costs the server). The first event after
// a quiet spell goes out at once; the others wait at most this long.
constexpr std::chrono::milliseconds kGather{100};
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
      backlog_(opener.max_backlog(), opener.budget()) {
  request_.set_cluster(std::move(cluster));
  request_.set_after_sequence(after_sequence);
}

void EventStream::Open() {
  {
    MutexLock lock(&mu_);
    if (cancelled_) return;  // ended before it began: nothing to open
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
  changed_.notify_all();
}

void EventStream::Push(const SharedEvent& event) {
  MutexLock lock(&mu_);
  if (ended_ || cancelled_) return;
  if (absl::Status kept = backlog_.Push(event); !kept.ok()) {
    ended_ = kept;
  } else if (std::chrono::steady_clock::now() < gather_until_) {
    return;  // the reader takes it when its gathering ends
  }
  changed_.notify_all();
}

void EventStream::End(const absl::Status& status) {
  MutexLock lock(&mu_);
  if (!ended_) ended_ = status;
  changed_.notify_all();
}

bool EventStream::Closed() const {
  MutexLock lock(&mu_);
  return cancelled_ || ended_.has_value();
}

bool EventStream::Next(std::string& chunk, const std::function<bool()>& client_there) {
  chunk.clear();
  if (end_sent_) return false;
  if (!opened_) {
    opened_ = true;
    Open();
  }
  // Waits for an event, the end or the heartbeat, asking now and then whether the client is
  // still there (off the lock: it asks the socket).
  const auto heartbeat_at = std::chrono::steady_clock::now() + heartbeat_;
  // The events ready now, written at once: one wake-up and one write for a burst of changes.
  std::vector<SharedEvent> events;
  std::optional<absl::Status> ended;
  for (;;) {
    {
      MutexLock lock(&mu_);
      const auto check_at = std::min(heartbeat_at, std::chrono::steady_clock::now() + kClientCheck);
      for (;;) {
        if (cancelled_) {
          end_sent_ = true;
          return false;
        }
        const auto now = std::chrono::steady_clock::now();
        if (started_ && !backlog_.empty() && (now >= gather_until_ || ended_)) {
          while (!backlog_.empty() && events.size() < kMaxEventsPerWrite) {
            events.push_back(backlog_.Pop());
          }
          // A reader that has caught up gathers the next events for a while; one behind goes on.
          gather_until_ = backlog_.empty() ? now + kGather : now;
          break;
        }
        if (ended_ && backlog_.empty()) {
          ended = ended_;
          break;
        }
        // While gathering, Push does not wake the reader: it wakes when the gathering ends.
        const auto wake_at = now < gather_until_ ? std::min(check_at, gather_until_) : check_at;
        if (wake_at <= now) break;
        mu_.WaitFor(changed_, wake_at - now);
      }
    }
    if (!events.empty() || ended) break;
    if (std::chrono::steady_clock::now() >= heartbeat_at) {
      chunk = ": heartbeat\n\n";  // an SSE comment: EventSource skips it
      return true;
    }
    if (client_there && !client_there()) Cancel();
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
    changed_.notify_all();
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
