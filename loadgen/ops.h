// The calls resched-loadgen makes, each built from a seeded random stream against one of its
// clusters, and what a client remembers between calls (the jobs it submitted, to cancel or
// finish them).
#pragma once

#include <grpcpp/grpcpp.h>

#include <random>
#include <string>
#include <vector>

#include "grpc/health/v1/health.grpc.pb.h"
#include "resched/v1/service.grpc.pb.h"

namespace resched::loadgen {

enum class Op {
  kSubmit,          // SubmitJob, a rigid job
  kSubmitMoldable,  // SubmitJob, an Amdahl job the policy sizes
  kDryRun,          // SubmitJob with dry_run
  kCancel,          // CancelJob of a job this client submitted
  kReport,          // ReportJobEvent: a job this client submitted finished
  kAdvance,         // AdvanceClock by a minute (jobs start and end)
  kReserve,         // AddReservation ahead of the clock (read first: GetCluster, timed with it)
  kReserveDag,      // ReserveDAG of a small fork-join workflow
  kQueryDeadline,   // QueryDeadline of the same workflow, without booking
  kGetSchedule,     // GetSchedule
  kGetCluster,      // GetCluster
  kListJobs,        // ListJobs of the queued and running jobs (a page of 100)
  kHealth,          // grpc.health.v1.Health/Check: the round trip alone
};

// The flag names: submit, submit-moldable, dry-run, cancel, report, advance, reserve,
// reserve-dag, query-deadline, get-schedule, get-cluster, list-jobs, health.
const std::vector<std::pair<Op, std::string>>& OpNames();
const std::string& OpName(Op op);

struct Stubs {
  std::unique_ptr<::resched::v1::Resched::Stub> resched;
  std::unique_ptr<::grpc::health::v1::Health::Stub> health;
};

// One client's memory: the jobs it submitted per cluster, most recent last.
struct ClientState {
  explicit ClientState(std::uint64_t seed, int clusters) : rng(seed), jobs(clusters) {}
  std::mt19937_64 rng;
  std::vector<std::vector<std::string>> jobs;
};

// Makes one call of kind `op` on cluster `cluster` (index into `names`), waiting for the answer.
grpc::Status Call(Op op, const std::vector<std::string>& names, int cluster, Stubs& stubs,
                  ClientState& state);

}  // namespace resched::loadgen
