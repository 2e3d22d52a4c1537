// The callback API's entry points: each unary call runs its handler (service.cc,
// service_dags.cc) on a worker thread and finishes from there; WatchSchedule returns its
// stream at once and subscribes it on a worker.
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/service.h"

namespace resched::server {

absl::Status ReschedService::Overloaded() const {
  return absl::ResourceExhaustedError(
      absl::StrCat("the server has ", limits_.max_waiting_calls,
                   " calls waiting for a thread (max_waiting_calls); retry later"));
}

namespace {

// One line per failed call: what a person looks for first when a client reports an error.
void LogFailedCall(const char* method, const grpc::Status& status, double seconds,
                   const std::string& trace_id) {
  const std::string code =
      absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code()));
  LogFields fields = {{"method", method},
                      {"code", code},
                      {"error", status.error_message()},
                      {"ms", absl::StrFormat("%.3f", seconds * 1e3)}};
  if (!trace_id.empty()) fields.emplace_back("trace_id", trace_id);
  Log(LogLevel::kWarning, "call_failed",
      absl::StrCat(method, " failed: ", code, ": ", status.error_message()), fields);
}

}  // namespace

template <class Request, class Response>
grpc::ServerUnaryReactor* ReschedService::Dispatch(
    grpc::CallbackServerContext* context, const char* method, const Request* request,
    Response* response, grpc::Status (ReschedService::*handler)(const Request*, Response*)) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const auto arrived = std::chrono::steady_clock::now();
  std::string trace_id;
  if (auto it = context->client_metadata().find("traceparent");
      it != context->client_metadata().end()) {
    trace_id = TraceIdOf(absl::string_view(it->second.data(), it->second.size()));
  }
  auto finish = [this, reactor, method, arrived, trace_id](const grpc::Status& status) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - arrived).count();
    metrics_.ObserveCall(method, status.error_code(), seconds);
    if (!status.ok()) LogFailedCall(method, status, seconds, trace_id);
    reactor->Finish(status);
  };
  // The request and the response live until Finish.
  if (!workers_.TryPost([this, request, response, handler, finish] {
        finish((this->*handler)(request, response));
      })) {
    metrics_.CountShed(method);
    finish(ToGrpc(Overloaded()));
  }
  return reactor;
}

grpc::ServerUnaryReactor* ReschedService::CreateCluster(grpc::CallbackServerContext* context,
                                                        const pb::CreateClusterRequest* request,
                                                        pb::Cluster* response) {
  return Dispatch(context, "CreateCluster", request, response,
                  &ReschedService::HandleCreateCluster);
}

grpc::ServerUnaryReactor* ReschedService::GetCluster(grpc::CallbackServerContext* context,
                                                     const pb::GetClusterRequest* request,
                                                     pb::Cluster* response) {
  return Dispatch(context, "GetCluster", request, response, &ReschedService::HandleGetCluster);
}

grpc::ServerUnaryReactor* ReschedService::ListClusters(grpc::CallbackServerContext* context,
                                                       const pb::ListClustersRequest* request,
                                                       pb::ListClustersResponse* response) {
  return Dispatch(context, "ListClusters", request, response, &ReschedService::HandleListClusters);
}

grpc::ServerUnaryReactor* ReschedService::DeleteCluster(grpc::CallbackServerContext* context,
                                                        const pb::DeleteClusterRequest* request,
                                                        pb::DeleteClusterResponse* response) {
  return Dispatch(context, "DeleteCluster", request, response,
                  &ReschedService::HandleDeleteCluster);
}

grpc::ServerUnaryReactor* ReschedService::SubmitJob(grpc::CallbackServerContext* context,
                                                    const pb::SubmitJobRequest* request,
                                                    pb::SubmitJobResponse* response) {
  return Dispatch(context, "SubmitJob", request, response, &ReschedService::HandleSubmitJob);
}

grpc::ServerUnaryReactor* ReschedService::GetJob(grpc::CallbackServerContext* context,
                                                 const pb::GetJobRequest* request,
                                                 pb::Job* response) {
  return Dispatch(context, "GetJob", request, response, &ReschedService::HandleGetJob);
}

grpc::ServerUnaryReactor* ReschedService::ListJobs(grpc::CallbackServerContext* context,
                                                   const pb::ListJobsRequest* request,
                                                   pb::ListJobsResponse* response) {
  return Dispatch(context, "ListJobs", request, response, &ReschedService::HandleListJobs);
}

grpc::ServerUnaryReactor* ReschedService::CancelJob(grpc::CallbackServerContext* context,
                                                    const pb::CancelJobRequest* request,
                                                    pb::Job* response) {
  return Dispatch(context, "CancelJob", request, response, &ReschedService::HandleCancelJob);
}

grpc::ServerUnaryReactor* ReschedService::ReportJobEvent(grpc::CallbackServerContext* context,
                                                         const pb::ReportJobEventRequest* request,
                                                         pb::Job* response) {
  return Dispatch(context, "ReportJobEvent", request, response,
                  &ReschedService::HandleReportJobEvent);
}

grpc::ServerUnaryReactor* ReschedService::AddReservation(grpc::CallbackServerContext* context,
                                                         const pb::AddReservationRequest* request,
                                                         pb::Reservation* response) {
  return Dispatch(context, "AddReservation", request, response,
                  &ReschedService::HandleAddReservation);
}

grpc::ServerUnaryReactor* ReschedService::RemoveReservation(
    grpc::CallbackServerContext* context, const pb::RemoveReservationRequest* request,
    pb::RemoveReservationResponse* response) {
  return Dispatch(context, "RemoveReservation", request, response,
                  &ReschedService::HandleRemoveReservation);
}

grpc::ServerUnaryReactor* ReschedService::ReserveDAG(grpc::CallbackServerContext* context,
                                                     const pb::ReserveDAGRequest* request,
                                                     pb::ReserveDAGResponse* response) {
  return Dispatch(context, "ReserveDAG", request, response, &ReschedService::HandleReserveDAG);
}

grpc::ServerUnaryReactor* ReschedService::QueryDeadline(grpc::CallbackServerContext* context,
                                                        const pb::QueryDeadlineRequest* request,
                                                        pb::QueryDeadlineResponse* response) {
  return Dispatch(context, "QueryDeadline", request, response,
                  &ReschedService::HandleQueryDeadline);
}

grpc::ServerUnaryReactor* ReschedService::GetDagReservation(
    grpc::CallbackServerContext* context, const pb::GetDagReservationRequest* request,
    pb::DagReservation* response) {
  return Dispatch(context, "GetDagReservation", request, response,
                  &ReschedService::HandleGetDagReservation);
}

grpc::ServerUnaryReactor* ReschedService::ListDagReservations(
    grpc::CallbackServerContext* context, const pb::ListDagReservationsRequest* request,
    pb::ListDagReservationsResponse* response) {
  return Dispatch(context, "ListDagReservations", request, response,
                  &ReschedService::HandleListDagReservations);
}

grpc::ServerUnaryReactor* ReschedService::ReleaseDAG(grpc::CallbackServerContext* context,
                                                     const pb::ReleaseDAGRequest* request,
                                                     pb::ReleaseDAGResponse* response) {
  return Dispatch(context, "ReleaseDAG", request, response, &ReschedService::HandleReleaseDAG);
}

grpc::ServerUnaryReactor* ReschedService::Replan(grpc::CallbackServerContext* context,
                                                 const pb::ReplanRequest* request,
                                                 pb::ReplanResponse* response) {
  return Dispatch(context, "Replan", request, response, &ReschedService::HandleReplan);
}

grpc::ServerUnaryReactor* ReschedService::GetSchedule(grpc::CallbackServerContext* context,
                                                      const pb::GetScheduleRequest* request,
                                                      pb::Schedule* response) {
  return Dispatch(context, "GetSchedule", request, response, &ReschedService::HandleGetSchedule);
}

grpc::ServerUnaryReactor* ReschedService::AdvanceClock(grpc::CallbackServerContext* context,
                                                       const pb::AdvanceClockRequest* request,
                                                       pb::AdvanceClockResponse* response) {
  return Dispatch(context, "AdvanceClock", request, response, &ReschedService::HandleAdvanceClock);
}

grpc::ServerUnaryReactor* ReschedService::ListAlgorithms(grpc::CallbackServerContext* context,
                                                         const pb::ListAlgorithmsRequest* request,
                                                         pb::ListAlgorithmsResponse* response) {
  return Dispatch(context, "ListAlgorithms", request, response,
                  &ReschedService::HandleListAlgorithms);
}

grpc::ServerWriteReactor<pb::ScheduleEvent>* ReschedService::WatchSchedule(
    grpc::CallbackServerContext*, const pb::WatchScheduleRequest* request) {
  metrics_.WatchStarted();
  auto watch =
      std::make_shared<ScheduleWatch>(limits_.max_watch_backlog, [this] { metrics_.WatchEnded(); });
  ScheduleWatch* raw = watch.get();
  if (!workers_.TryPost([this, request, watch]() mutable { StartWatch(*request, watch); })) {
    watch->End(Overloaded());
    raw->Start(std::move(watch), std::nullopt);
  }
  return raw;
}

}  // namespace resched::server
