// The resched v1 gRPC service: an adapter from gRPC's callback API to the application
// (server/app/application.h). Each unary call passes the application's gate, runs on a worker
// thread (or inline on gRPC's thread when it cannot wait, server/app/call_context.h) with a
// CallContext made from the gRPC call, is finished once its journal records are durable, and
// has its absl::Status converted once (server/rpc/to_grpc.h). A WatchSchedule stream holds no
// thread while it waits for events.
#pragma once

#include <string>

#include "resched/v1/service.grpc.pb.h"
#include "server/app/application.h"
#include "server/base/stream_caps.h"

namespace resched::server {

class ReschedService final : public pb::Resched::CallbackService {
 public:
  // `app` outlives the service (and the gRPC server it is registered with).
  explicit ReschedService(Application& app);

  grpc::ServerUnaryReactor* CreateCluster(grpc::CallbackServerContext*,
                                          const pb::CreateClusterRequest*, pb::Cluster*) override;
  grpc::ServerUnaryReactor* GetCluster(grpc::CallbackServerContext*, const pb::GetClusterRequest*,
                                       pb::Cluster*) override;
  grpc::ServerUnaryReactor* ListClusters(grpc::CallbackServerContext*,
                                         const pb::ListClustersRequest*,
                                         pb::ListClustersResponse*) override;
  grpc::ServerUnaryReactor* DeleteCluster(grpc::CallbackServerContext*,
                                          const pb::DeleteClusterRequest*,
                                          pb::DeleteClusterResponse*) override;
  grpc::ServerUnaryReactor* SubmitJob(grpc::CallbackServerContext*, const pb::SubmitJobRequest*,
                                      pb::SubmitJobResponse*) override;
  grpc::ServerUnaryReactor* GetJob(grpc::CallbackServerContext*, const pb::GetJobRequest*,
                                   pb::Job*) override;
  grpc::ServerUnaryReactor* ListJobs(grpc::CallbackServerContext*, const pb::ListJobsRequest*,
                                     pb::ListJobsResponse*) override;
  grpc::ServerUnaryReactor* CancelJob(grpc::CallbackServerContext*, const pb::CancelJobRequest*,
                                      pb::Job*) override;
  grpc::ServerUnaryReactor* ReportJobEvent(grpc::CallbackServerContext*,
                                           const pb::ReportJobEventRequest*, pb::Job*) override;
  grpc::ServerUnaryReactor* AddReservation(grpc::CallbackServerContext*,
                                           const pb::AddReservationRequest*,
                                           pb::Reservation*) override;
  grpc::ServerUnaryReactor* RemoveReservation(grpc::CallbackServerContext*,
                                              const pb::RemoveReservationRequest*,
                                              pb::RemoveReservationResponse*) override;
  grpc::ServerUnaryReactor* ReserveDAG(grpc::CallbackServerContext*, const pb::ReserveDAGRequest*,
                                       pb::ReserveDAGResponse*) override;
  grpc::ServerUnaryReactor* QueryDeadline(grpc::CallbackServerContext*,
                                          const pb::QueryDeadlineRequest*,
                                          pb::QueryDeadlineResponse*) override;
  grpc::ServerUnaryReactor* GetDagReservation(grpc::CallbackServerContext*,
                                              const pb::GetDagReservationRequest*,
                                              pb::DagReservation*) override;
  grpc::ServerUnaryReactor* ListDagReservations(grpc::CallbackServerContext*,
                                                const pb::ListDagReservationsRequest*,
                                                pb::ListDagReservationsResponse*) override;
  grpc::ServerUnaryReactor* ReleaseDAG(grpc::CallbackServerContext*, const pb::ReleaseDAGRequest*,
                                       pb::ReleaseDAGResponse*) override;
  grpc::ServerUnaryReactor* Replan(grpc::CallbackServerContext*, const pb::ReplanRequest*,
                                   pb::ReplanResponse*) override;
  grpc::ServerUnaryReactor* GetSchedule(grpc::CallbackServerContext*, const pb::GetScheduleRequest*,
                                        pb::Schedule*) override;
  grpc::ServerUnaryReactor* AdvanceClock(grpc::CallbackServerContext*,
                                         const pb::AdvanceClockRequest*,
                                         pb::AdvanceClockResponse*) override;
  grpc::ServerUnaryReactor* ListAlgorithms(grpc::CallbackServerContext*,
                                           const pb::ListAlgorithmsRequest*,
                                           pb::ListAlgorithmsResponse*) override;
  grpc::ServerWriteReactor<pb::ScheduleEvent>* WatchSchedule(
      grpc::CallbackServerContext*, const pb::WatchScheduleRequest*) override;

 private:
  // Runs the application's `handler` for the call and finishes it with its status.
  template <class Request, class Response>
  grpc::ServerUnaryReactor* Dispatch(grpc::CallbackServerContext* context, const char* method,
                                     const Request* request, Response* response,
                                     absl::Status (Application::*handler)(CallContext&,
                                                                          const Request&,
                                                                          Response*));

  Application& app_;
  // Open WatchSchedule streams, in total and per client.
  StreamCaps watch_caps_;
};

}  // namespace resched::server
