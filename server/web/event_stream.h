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
  EventStream(resched::v1::Resched::Stub& stub, const std::string& cluster,
              const std::string& authorization);

  // Waits for the next event and sets `chunk` to it as SSE text. Returns false once the watch
  // has ended: `chunk` is then an "end" event with the call's status, or empty when the stream
  // was cancelled here.
  bool Next(std::string& chunk);
  // Ends the watch; a Next waiting for an event returns. From any thread.
  void Cancel();

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderInterface<resched::v1::ScheduleEvent>> reader_;
  std::atomic<bool> cancelled_{false};
};

// The open streams of a web view, so that stopping it ends them first.
class EventStreams {
 public:
  void Add(const std::shared_ptr<EventStream>& stream) ABSL_LOCKS_EXCLUDED(mu_);
  void Remove(const std::shared_ptr<EventStream>& stream) ABSL_LOCKS_EXCLUDED(mu_);
  void CancelAll() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  Mutex mu_;
  std::set<std::shared_ptr<EventStream>> open_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;  // after CancelAll a new stream ends at once
};

}  // namespace resched::server::web
