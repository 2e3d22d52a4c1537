// A SimDriver (core/sim/sim_driver.h) over the gRPC API of one SIMULATED cluster, so that the
// simulator's replay loop drives a real server.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "core/sim/sim_driver.h"
#include "proto/resched/convert.h"
#include "resched/v1/service.grpc.pb.h"

namespace resched::server::testing {

namespace pb = ::resched::v1;

inline absl::Status FromGrpc(const grpc::Status& s) {
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

// A SimDriver over the API of one SIMULATED cluster of a server.
class GrpcDriver final : public SimDriver {
 public:
  GrpcDriver(pb::Resched::Stub& stub, std::string cluster)
      : stub_(stub), cluster_(std::move(cluster)) {}

  absl::StatusOr<JobId> Submit(const Job& job) override {
    pb::SubmitJobRequest request;
    request.set_cluster(cluster_);
    *request.mutable_job() = ToProto(job);
    pb::SubmitJobResponse response;
    grpc::ClientContext context;
    if (auto s = stub_.SubmitJob(&context, request, &response); !s.ok()) return FromGrpc(s);
    return response.job().id();
  }

  absl::Status ReportEnded(const JobId& id, Time t) override {
    pb::ReportJobEventRequest request;
    request.set_cluster(cluster_);
    request.set_id(id);
    request.set_kind(pb::FINISHED_EVENT);
    *request.mutable_time() = ToTimestamp(t);
    pb::Job response;
    grpc::ClientContext context;
    return FromGrpc(stub_.ReportJobEvent(&context, request, &response));
  }

  absl::Status AdvanceTo(Time t) override {
    pb::AdvanceClockRequest request;
    request.set_cluster(cluster_);
    *request.mutable_to() = ToTimestamp(t);
    pb::AdvanceClockResponse response;
    grpc::ClientContext context;
    return FromGrpc(stub_.AdvanceClock(&context, request, &response));
  }

  absl::StatusOr<std::vector<JobView>> ActiveJobs() override {
    std::vector<JobView> out;
    std::string token;
    do {
      pb::ListJobsRequest request;
      request.set_cluster(cluster_);
      request.add_states(pb::QUEUED);
      request.add_states(pb::RUNNING);
      request.set_page_size(10'000);
      request.set_page_token(token);
      pb::ListJobsResponse response;
      grpc::ClientContext context;
      if (auto s = stub_.ListJobs(&context, request, &response); !s.ok()) return FromGrpc(s);
      for (const pb::Job& job : response.jobs()) {
        auto start = FromProto(job.allocation().start(), "start");
        auto end = FromProto(job.allocation().end(), "end");
        if (!start.ok()) return start.status();
        if (!end.ok()) return end.status();
        out.push_back(JobView{job.id(),
                              job.state() == pb::RUNNING ? JobState::kRunning : JobState::kQueued,
                              {job.allocation().processors(), *start, *end}});
      }
      token = response.next_page_token();
    } while (!token.empty());
    return out;
  }

 private:
  pb::Resched::Stub& stub_;
  const std::string cluster_;
};

}  // namespace resched::server::testing
