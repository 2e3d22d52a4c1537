#include "server/web/event_stream.h"

#include "absl/strings/str_cat.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

namespace pb = ::resched::v1;

namespace {

// Events the reader takes from the call before the page has sent them.
constexpr std::size_t kReadAhead = 64;
// How often a stream waiting for events asks whether its client is still there.
constexpr std::chrono::milliseconds kClientCheck{250};

}  // namespace

EventStream::EventStream(pb::Resched::Stub& stub, std::string cluster, WebCaller caller,
                         std::chrono::milliseconds heartbeat, EventChunks& chunks,
                         std::int64_t after_sequence)
    : stub_(stub),
      cluster_(std::move(cluster)),
      caller_(std::move(caller)),
      heartbeat_(heartbeat),
      chunks_(chunks),
      after_sequence_(after_sequence) {}

EventStream::~EventStream() {
  if (!reader_thread_.joinable()) return;
  Cancel();  // a call still open ends, and a reader waiting for room returns
  reader_thread_.join();
}

void EventStream::Read() {
  pb::ScheduleEvent event;
  while (reader_->Read(&event)) {
    MutexLock lock(&mu_);
    // No further ahead than the page takes them: a slow page holds up the call, and the
    // server's own limit on a watch's backlog (max_watch_backlog) ends it, as it ends any.
    while (events_.size() >= kReadAhead && !cancelled_) mu_.Wait(drained_);
    if (cancelled_) continue;  // read on, and drop, until the cancelled call ends
    events_.push_back(std::move(event));
    changed_.notify_all();
  }
  grpc::Status status = reader_->Finish();
  MutexLock lock(&mu_);
  ended_ = std::move(status);
  changed_.notify_all();
}

bool EventStream::Next(std::string& chunk, const std::function<bool()>& client_there) {
  chunk.clear();
  if (end_sent_) return false;
  if (!reader_thread_.joinable()) {
    {
      MutexLock lock(&mu_);
      if (cancelled_) return false;  // ended before it began: no call to end
    }
    ForwardCaller(caller_, &context_);
    pb::WatchScheduleRequest request;
    request.set_cluster(cluster_);
    request.set_after_sequence(after_sequence_);
    reader_ = stub_.WatchSchedule(&context_, request);
    reader_thread_ = std::thread([this] { Read(); });
  }
  // Waits for an event, the end or the heartbeat, asking now and then whether the client is
  // still there (off the lock: it asks the socket).
  const auto heartbeat_at = std::chrono::steady_clock::now() + heartbeat_;
  for (;;) {
    {
      MutexLock lock(&mu_);
      const auto left = heartbeat_at - std::chrono::steady_clock::now();
      if (!events_.empty() || ended_ || cancelled_ || left <= left.zero()) break;
      mu_.WaitFor(changed_, std::min<std::chrono::steady_clock::duration>(left, kClientCheck));
      if (!events_.empty() || ended_ || cancelled_) break;
    }
    if (client_there && !client_there()) Cancel();
  }
  std::optional<pb::ScheduleEvent> event;
  std::optional<grpc::Status> ended;
  bool cancelled = false;
  {
    MutexLock lock(&mu_);
    cancelled = cancelled_;
    if (!events_.empty()) {
      event = std::move(events_.front());
      events_.pop_front();
      drained_.notify_all();
    } else if (ended_) {
      ended = ended_;
    }
  }
  if (event && !cancelled) {
    chunk = *chunks_.Chunk(*event);
    return true;
  }
  if (cancelled || ended) {
    end_sent_ = true;
    if (!cancelled) chunk = absl::StrCat("event: end\ndata: ", ErrorReply(*ended).body, "\n\n");
    return false;
  }
  chunk = ": heartbeat\n\n";  // an SSE comment: EventSource skips it
  return true;
}

void EventStream::Cancel() {
  {
    MutexLock lock(&mu_);
    cancelled_ = true;
    changed_.notify_all();
    drained_.notify_all();
  }
  context_.TryCancel();
}

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
