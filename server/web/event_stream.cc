#include "server/web/event_stream.h"

#include "absl/strings/str_cat.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

namespace pb = ::resched::v1;

EventStream::EventStream(pb::Resched::Stub& stub, std::string cluster, std::string authorization)
    : stub_(stub), cluster_(std::move(cluster)), authorization_(std::move(authorization)) {}

EventStream::~EventStream() {
  if (reader_ == nullptr || finished_) return;
  context_.TryCancel();
  pb::ScheduleEvent event;
  while (reader_->Read(&event)) {
  }
  (void)reader_->Finish();
}

bool EventStream::Next(std::string& chunk) {
  chunk.clear();
  if (reader_ == nullptr) {
    if (cancelled_) return false;  // ended before it began: no call to end
    ForwardAuthorization(authorization_, &context_);
    pb::WatchScheduleRequest request;
    request.set_cluster(cluster_);
    reader_ = stub_.WatchSchedule(&context_, request);
  }
  pb::ScheduleEvent event;
  if (reader_->Read(&event)) {
    const HttpReply json = JsonReply(event);
    chunk = absl::StrCat("event: ", pb::ScheduleEvent::Kind_Name(event.kind()),
                         "\ndata: ", json.body, "\n\n");
    return true;
  }
  const grpc::Status status = reader_->Finish();
  finished_ = true;
  if (!cancelled_) chunk = absl::StrCat("event: end\ndata: ", ErrorReply(status).body, "\n\n");
  return false;
}

void EventStream::Cancel() {
  cancelled_ = true;
  context_.TryCancel();
}

bool EventStreams::Add(const std::shared_ptr<EventStream>& stream, int limit) {
  MutexLock lock(&mu_);
  if (static_cast<int>(open_.size()) >= limit) {
    stream->Cancel();
    return false;
  }
  if (closed_) stream->Cancel();
  open_.insert(stream);
  return true;
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
