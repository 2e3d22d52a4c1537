// One page's live feed (GET /api/v1/clusters/NAME/events): a WatchSchedule stream opened in
// process (server/rpc/watch_opener.h: the same gate, caps, backlog limits and relays as a gRPC
// caller's), whose events go out as Server-Sent Events, each event's kind as the SSE event name,
// its sequence as the SSE id (a browser that reconnects sends it back as Last-Event-ID, and the
// watch resumes after it) and the event in protobuf's JSON mapping as its data. Between events a
// comment line goes out every heartbeat, so that a page whose leaving its connection did not show
// (a network that dropped it) is noticed when the write fails, and its stream freed. The cluster
// pushes events into the stream's backlog and wakes the page's HTTP thread, which converts and
// writes them; that thread wakes for nothing else but the heartbeat and the client's leaving.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "server/app/shared_event.h"
#include "server/app/watch_backlog.h"
#include "server/base/mutex.h"
#include "server/base/stream_caps.h"
#include "server/base/wake_signal.h"
#include "server/rpc/watch_opener.h"
#include "server/web/event_chunks.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

class EventStream final : public WatchOpener::Stream,
                          public std::enable_shared_from_this<EventStream> {
 public:
  // The stream opens at the first Next. `opener` and `chunks` (the events' text, shared with the
  // other streams) outlive the stream.
  // `after_sequence`: the last event the page saw (WatchScheduleRequest.after_sequence).
  EventStream(WatchOpener& opener, std::string cluster, const WebCaller& caller,
              std::chrono::milliseconds heartbeat, EventChunks& chunks,
              std::int64_t after_sequence = 0);
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  // Waits for the next event and sets `chunk` to it and those behind it as SSE text (a few dozen
  // at most), or to an SSE comment when a heartbeat passed without one. Returns false once the
  // watch has ended: `chunk` is then an "end" event with the stream's status, or empty when the
  // stream was cancelled here. `client_socket`, the client's connection (-1: none): watched while
  // waiting, so that a client that closes it (a page left) cancels the stream then, not at the
  // next failed write.
  bool Next(std::string& chunk, int client_socket = -1) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends the watch and frees what it holds; a Next waiting for an event returns. From any thread.
  void Cancel() ABSL_LOCKS_EXCLUDED(mu_);

  // The cluster's side (WatchOpener::Stream).
  void Start(std::optional<pb::ScheduleEvent> first) override ABSL_LOCKS_EXCLUDED(mu_);
  void Push(const SharedEvent& event) override ABSL_LOCKS_EXCLUDED(mu_);
  void End(const absl::Status& status) override ABSL_LOCKS_EXCLUDED(mu_);
  bool Closed() const override ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Opens the watch (Next's first call).
  void Open() ABSL_LOCKS_EXCLUDED(mu_);
  // Wakes the reader unless it was woken since it last looked.
  void Wake() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  WatchOpener& opener_;
  pb::WatchScheduleRequest request_;
  WatchOpener::Caller caller_;
  const std::chrono::milliseconds heartbeat_;
  EventChunks& chunks_;
  mutable Mutex mu_;
  WakeSignal changed_;  // an event, the end, or a cancel
  // Raised since the reader last looked: a Push meanwhile need not raise it again.
  bool raised_ ABSL_GUARDED_BY(mu_) = false;
  WatchBacklog backlog_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;               // its events may be taken
  std::optional<absl::Status> ended_ ABSL_GUARDED_BY(mu_);  // sent after the events
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  // Until then the reader gathers events (event_stream.cc, kGatherLeast): Push does not wake it.
  std::chrono::steady_clock::time_point gather_until_ ABSL_GUARDED_BY(mu_);
  bool gathering_ ABSL_GUARDED_BY(mu_) = false;  // gather_until_ ends a gathering
  // How long the next gathering lasts: longer while events keep coming.
  std::chrono::milliseconds gather_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<WatchOpener::Lease> lease_ ABSL_GUARDED_BY(mu_);
  bool opened_ = false;    // Next's own: Open was called
  bool end_sent_ = false;  // Next's own: the end was handed out
};

// The open streams of a web view, so that stopping it ends them first, and so that no one client
// holds them all (server/base/stream_caps.h): a client is the bearer token it presents, or its
// address without one.
class EventStreams {
 public:
  EventStreams(int total, int per_client);

  // Keeps `stream` for `client`, or cancels it and returns RESOURCE_EXHAUSTED naming the cap.
  absl::Status Add(const std::shared_ptr<EventStream>& stream, const std::string& client)
      ABSL_LOCKS_EXCLUDED(mu_);
  void Remove(const std::shared_ptr<EventStream>& stream) ABSL_LOCKS_EXCLUDED(mu_);
  void CancelAll() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  StreamCaps caps_;
  Mutex mu_;
  std::map<std::shared_ptr<EventStream>, std::string> open_ ABSL_GUARDED_BY(mu_);  // -> client
  bool closed_ ABSL_GUARDED_BY(mu_) = false;  // after CancelAll a new stream ends at once
};

}  // namespace resched::server::web
