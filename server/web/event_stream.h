// One page's live feed (GET /api/v1/clusters/NAME/events): a WatchSchedule call over the
// in-process channel whose events go out as Server-Sent Events, each event's kind as the SSE
// event name and the event in protobuf's JSON mapping as its data.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <set>
#include <string>

#include "resched/v1/service.grpc.pb.h"
#include "server/mutex.h"

namespace resched::server::web {

class EventStream {
 public:
  // The call starts at the first Next.
  EventStream(resched::v1::Resched::Stub& stub, std::string cluster, std::string authorization);
  // Ends a call still open (a client that went away) and collects its status.
  ~EventStream();
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  // Waits for the next event and sets `chunk` to it as SSE text. Returns false once the watch
  // has ended: `chunk` is then an "end" event with the call's status, or empty when the stream
  // was cancelled here.
  bool Next(std::string& chunk);
  // Ends the watch; a Next waiting for an event returns. From any thread.
  void Cancel();

 private:
  resched::v1::Resched::Stub& stub_;
  const std::string cluster_;
  const std::string authorization_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderInterface<resched::v1::ScheduleEvent>> reader_;
  bool finished_ = false;
  std::atomic<bool> cancelled_{false};
};

// The open streams of a web view, so that stopping it ends them first.
class EventStreams {
 public:
  // Keeps `stream` unless `limit` are open already (it is then cancelled and false returned).
  bool Add(const std::shared_ptr<EventStream>& stream, int limit) ABSL_LOCKS_EXCLUDED(mu_);
  void Remove(const std::shared_ptr<EventStream>& stream) ABSL_LOCKS_EXCLUDED(mu_);
  void CancelAll() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  Mutex mu_;
  std::set<std::shared_ptr<EventStream>> open_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;  // after CancelAll a new stream ends at once
};

}  // namespace resched::server::web
