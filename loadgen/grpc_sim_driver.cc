#include "loadgen/grpc_sim_driver.h"

#include <chrono>

#include "proto/resched/convert.h"

namespace resched::loadgen {
namespace {

namespace pb = ::resched::v1;

absl::Status FromGrpc(const grpc::Status& s) {
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

}  // namespace

absl::Status GrpcSimDriver::Timed(Op op,
                                  const std::function<grpc::Status(grpc::ClientContext&)>& call) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  const auto started = std::chrono::steady_clock::now();
  const grpc::Status status = call(context);
  if (log_ != nullptr) {
    log_->Record(
        op,
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started)
            .count(),
        status.error_code());
  }
  return FromGrpc(status);
}

absl::StatusOr<JobId> GrpcSimDriver::Submit(const Job& job) {
  pb::SubmitJobRequest request;
  request.set_cluster(cluster_);
  *request.mutable_job() = ToProto(job);
  pb::SubmitJobResponse response;
  absl::Status status = Timed(Op::kSubmit, [&](grpc::ClientContext& context) {
    return stub_.SubmitJob(&context, request, &response);
  });
  if (!status.ok()) return status;
  return response.job().id();
}

absl::Status GrpcSimDriver::ReportEnded(const JobId& id, Time t) {
  pb::ReportJobEventRequest request;
  request.set_cluster(cluster_);
  request.set_id(id);
  request.set_kind(pb::FINISHED_EVENT);
  *request.mutable_time() = ToTimestamp(t);
  pb::Job response;
  return Timed(Op::kReport, [&](grpc::ClientContext& context) {
    return stub_.ReportJobEvent(&context, request, &response);
  });
}

absl::Status GrpcSimDriver::AdvanceTo(Time t) {
  if (pace_) {
    if (absl::Status paced = pace_(t); !paced.ok()) return paced;
  }
  pb::AdvanceClockRequest request;
  request.set_cluster(cluster_);
  *request.mutable_to() = ToTimestamp(t);
  pb::AdvanceClockResponse response;
  return Timed(Op::kAdvance, [&](grpc::ClientContext& context) {
    return stub_.AdvanceClock(&context, request, &response);
  });
}

absl::StatusOr<std::vector<JobView>> GrpcSimDriver::ActiveJobs() {
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
    absl::Status status = Timed(Op::kListJobs, [&](grpc::ClientContext& context) {
      return stub_.ListJobs(&context, request, &response);
    });
    if (!status.ok()) return status;
    for (const pb::Job& job : response.jobs()) {
      auto start = FromProto(job.allocation().start(), "start");
      auto end = FromProto(job.allocation().end(), "end");
      if (!start.ok()) return start.status();
      if (!end.ok()) return end.status();
      out.push_back(JobView{job.id(),
                            job.state() == pb::RUNNING ? JobState::kRunning : JobState::kQueued,
                            {job.allocation().processors(), *start, *end},
                            job.has_group() ? job.group() : -1});
    }
    token = response.next_page_token();
  } while (!token.empty());
  return out;
}

}  // namespace resched::loadgen
