// One page's live feed (GET /api/v1/clusters/NAME/events): a WatchSchedule call over the
// in-process channel whose events go out as Server-Sent Events, each event's kind as the SSE
// event name, its sequence as the SSE id (a browser that reconnects sends it back as Last-Event-ID,
// and the watch resumes after it) and the event in protobuf's JSON mapping as its data. Between
// events a comment line goes out every heartbeat, so that a page that went away is noticed (its
// write fails) even on a quiet cluster, and its stream and thread freed.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "resched/v1/service.grpc.pb.h"
#include "server/base/mutex.h"
#include "server/base/stream_caps.h"
#include "server/web/event_chunks.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

class EventStream {
 public:
  // The call starts at the first Next, and a thread of its own reads it (a blocking Read cannot
  // wait for a heartbeat).
  // `after_sequence`: the last event the page saw (WatchScheduleRequest.after_sequence).
  // `chunks`: the events' text, shared with the other streams; it outlives the stream.
  EventStream(resched::v1::Resched::Stub& stub, std::string cluster, WebCaller caller,
              std::chrono::milliseconds heartbeat, EventChunks& chunks,
              std::int64_t after_sequence = 0);
  // Ends a call still open (a client that went away), collects its status and joins the reader.
  ~EventStream();
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  // Waits for the next event and sets `chunk` to it as SSE text, or to an SSE comment when a
  // heartbeat passed without one. Returns false once the watch has ended: `chunk` is then an
  // "end" event with the call's status, or empty when the stream was cancelled here.
  // `client_there`, asked every quarter second while waiting: false once the client closed its
  // connection (a page left), which cancels the stream then, not at the next failed write.
  bool Next(std::string& chunk, const std::function<bool()>& client_there = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  // Ends the watch; a Next waiting for an event returns. From any thread.
  void Cancel() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Read();  // the reader thread

  resched::v1::Resched::Stub& stub_;
  const std::string cluster_;
  const WebCaller caller_;
  const std::chrono::milliseconds heartbeat_;
  EventChunks& chunks_;
  const std::int64_t after_sequence_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderInterface<resched::v1::ScheduleEvent>> reader_;
  std::thread reader_thread_;
  Mutex mu_;
  std::condition_variable changed_;  // an event, the end, or a cancel
  std::condition_variable drained_;  // room in events_, or a cancel
  std::deque<resched::v1::ScheduleEvent> events_ ABSL_GUARDED_BY(mu_);
  std::optional<grpc::Status> ended_ ABSL_GUARDED_BY(mu_);  // the call's status once read
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
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
