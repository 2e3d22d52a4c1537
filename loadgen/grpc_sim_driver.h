// The simulator's driver (core/sim/sim_driver.h) over the gRPC API of one SIMULATED cluster, so
// that core/sim's replay loop drives a real server: resched-loadgen's SWF replay, and the tests
// that check a server against the simulator. Each call can be timed into a LatencyLog, and each
// clock move can first wait for its wall-clock instant (time compression).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/sim/sim_driver.h"
#include "loadgen/stats.h"
#include "resched/v1/service.grpc.pb.h"

namespace resched::loadgen {

class GrpcSimDriver final : public SimDriver {
 public:
  GrpcSimDriver(::resched::v1::Resched::Stub& stub, std::string cluster)
      : stub_(stub), cluster_(std::move(cluster)) {}

  // Times every call into `log` (SubmitJob as submit, ReportJobEvent as report, AdvanceClock as
  // advance, ListJobs as list-jobs).
  void set_log(LatencyLog* log) { log_ = log; }
  // Called with the simulated instant before the clock moves there (pacing); an error stops the
  // replay with it.
  void set_pace(std::function<absl::Status(Time)> pace) { pace_ = std::move(pace); }

  absl::StatusOr<JobId> Submit(const Job& job) override;
  absl::Status ReportEnded(const JobId& id, Time t) override;
  absl::Status AdvanceTo(Time t) override;
  absl::StatusOr<std::vector<JobView>> ActiveJobs() override;

 private:
  // Runs `call` with a fresh context and records its latency under `op`.
  absl::Status Timed(Op op, const std::function<grpc::Status(grpc::ClientContext&)>& call);

  ::resched::v1::Resched::Stub& stub_;
  const std::string cluster_;
  LatencyLog* log_ = nullptr;
  std::function<absl::Status(Time)> pace_;
};

}  // namespace resched::loadgen
