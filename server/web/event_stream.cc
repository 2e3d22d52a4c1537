#include "server/web/event_stream.h"

#include "absl/strings/str_cat.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

namespace pb = ::resched::v1;

EventStream::EventStream(pb::Resched::Stub& stub, const std::string& cluster,
                         const std::string& authorization) {
  ForwardAuthorization(authorization, &context_);
  pb::WatchScheduleRequest request;
  request.set_cluster(cluster);
  reader_ = stub.WatchSchedule(&context_, request);
}

bool EventStream::Next(std::string& chunk) {
  chunk.clear();
  pb::ScheduleEvent event;
  if (reader_->Read(&event)) {
    const HttpReply json = JsonReply(event);
    chunk = absl::StrCat("event: ", pb::ScheduleEvent::Kind_Name(event.kind()),
                         "\ndata: ", json.body, "\n\n");
    return true;
  }
  const grpc::Status status = reader_->Finish();
  if (!cancelled_) chunk = absl::StrCat("event: end\ndata: ", ErrorReply(status).body, "\n\n");
  return false;
}

void EventStream::Cancel() {
  cancelled_ = true;
  context_.TryCancel();
}

void EventStreams::Add(const std::shared_ptr<EventStream>& stream) {
  MutexLock lock(&mu_);
  if (closed_) stream->Cancel();
  open_.insert(stream);
}

void EventStreams::Remove(const std::shared_ptr<EventStream>& stream) {
  MutexLock lock(&mu_);
  open_.erase(stream);
}

void EventStreams::CancelAll() {
  MutexLock lock(&mu_);
  closed_ = true;
  for (const auto& stream : open_) stream->Cancel();
}

}  // namespace resched::server::web
