// The resched v1 gRPC service: validates at the boundary, converts once, and runs each
// request on its cluster's state under that cluster's single writer lock.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>

#include "resched/v1/config.pb.h"
#include "resched/v1/service.grpc.pb.h"
#include "server/cluster_state.h"

namespace resched::server {

struct ServiceLimits {
  int max_clusters = 64;
  int max_active_jobs_per_cluster = 100'000;
  int max_dag_tasks = 10'000;
  int max_dag_edges = 100'000;
};

class ReschedService final : public pb::Resched::Service {
 public:
  explicit ReschedService(ServiceLimits limits = {});
  ~ReschedService() override;

  // Creates the clusters of a configuration; fails without creating any on a bad spec.
  absl::Status CreateConfiguredClusters(const pb::ServerConfig& config);
  // Ends open WatchSchedule streams (before the server shuts down).
  void BeginShutdown();

  grpc::Status CreateCluster(grpc::ServerContext*, const pb::CreateClusterRequest*,
                             pb::Cluster*) override;
  grpc::Status GetCluster(grpc::ServerContext*, const pb::GetClusterRequest*,
                          pb::Cluster*) override;
  grpc::Status ListClusters(grpc::ServerContext*, const pb::ListClustersRequest*,
                            pb::ListClustersResponse*) override;
  grpc::Status DeleteCluster(grpc::ServerContext*, const pb::DeleteClusterRequest*,
                             pb::DeleteClusterResponse*) override;
  grpc::Status SubmitJob(grpc::ServerContext*, const pb::SubmitJobRequest*,
                         pb::SubmitJobResponse*) override;
  grpc::Status GetJob(grpc::ServerContext*, const pb::GetJobRequest*, pb::Job*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const pb::ListJobsRequest*,
                        pb::ListJobsResponse*) override;
  grpc::Status CancelJob(grpc::ServerContext*, const pb::CancelJobRequest*, pb::Job*) override;
  grpc::Status ReportJobEvent(grpc::ServerContext*, const pb::ReportJobEventRequest*,
                              pb::Job*) override;
  grpc::Status AddReservation(grpc::ServerContext*, const pb::AddReservationRequest*,
                              pb::Reservation*) override;
  grpc::Status RemoveReservation(grpc::ServerContext*, const pb::RemoveReservationRequest*,
                                 pb::RemoveReservationResponse*) override;
  grpc::Status ReserveDAG(grpc::ServerContext*, const pb::ReserveDAGRequest*,
                          pb::ReserveDAGResponse*) override;
  grpc::Status QueryDeadline(grpc::ServerContext*, const pb::QueryDeadlineRequest*,
                             pb::QueryDeadlineResponse*) override;
  grpc::Status GetDagReservation(grpc::ServerContext*, const pb::GetDagReservationRequest*,
                                 pb::DagReservation*) override;
  grpc::Status ListDagReservations(grpc::ServerContext*, const pb::ListDagReservationsRequest*,
                                   pb::ListDagReservationsResponse*) override;
  grpc::Status ReleaseDAG(grpc::ServerContext*, const pb::ReleaseDAGRequest*,
                          pb::ReleaseDAGResponse*) override;
  grpc::Status Replan(grpc::ServerContext*, const pb::ReplanRequest*, pb::ReplanResponse*) override;
  grpc::Status GetSchedule(grpc::ServerContext*, const pb::GetScheduleRequest*,
                           pb::Schedule*) override;
  grpc::Status WatchSchedule(grpc::ServerContext*, const pb::WatchScheduleRequest*,
                             grpc::ServerWriter<pb::ScheduleEvent>*) override;
  grpc::Status AdvanceClock(grpc::ServerContext*, const pb::AdvanceClockRequest*,
                            pb::AdvanceClockResponse*) override;
  grpc::Status ListAlgorithms(grpc::ServerContext*, const pb::ListAlgorithmsRequest*,
                              pb::ListAlgorithmsResponse*) override;

 private:
  absl::StatusOr<std::shared_ptr<ClusterState>> Find(const std::string& name);
  absl::StatusOr<pb::Cluster> Create(const pb::ClusterSpec& spec);
  pb::Cluster Describe(ClusterState& state);
  // Checks a ReserveDAG/QueryDeadline request's common fields and converts its DAG.
  absl::StatusOr<Dag> CheckDagRequest(const pb::Dag& dag, const std::string& request_id,
                                      const std::string& label) const;

  const ServiceLimits limits_;
  std::shared_mutex clusters_mu_;  // guards the map, not the clusters
  std::map<std::string, std::shared_ptr<ClusterState>> clusters_;
  std::mutex create_mu_;  // serializes CreateCluster/DeleteCluster request ids
  ReplyCache cluster_replies_{1000};
  std::atomic<bool> shutting_down_{false};
};

}  // namespace resched::server
