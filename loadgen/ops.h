// The calls resched-loadgen makes, each built from a seeded random stream against one of its
// clusters, and what a client remembers between calls (the jobs it submitted, to cancel or
// finish them).
#pragma once

#include <grpcpp/grpcpp.h>

#include <optional>
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
  kCancel,          // CancelJob of a queued or running job this client submitted
  kReport,          // ReportJobEvent: a running job this client submitted finished
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

// One client's memory per cluster: the long jobs it holds for cancel and report, those known to
// run and those that may still be queued.
struct ClientState {
  explicit ClientState(std::uint64_t seed, int clusters)
      : rng(seed), running(clusters), queued(clusters) {}
  std::mt19937_64 rng;
  std::vector<std::vector<std::string>> running;
  std::vector<std::vector<std::string>> queued;
};

// What a call acts on, found or made before it is timed: cancel and report need a job of this
// client's that has not ended (report: that is running). Their targets are jobs of ten years
// on one processor, submitted for it (untimed), so that no other client's clock moves end
// them first and other clients never touch them; a report whose job is queued advances the
// clock to its planned start (untimed). nullopt when no target could be had (a report whose
// job still does not run, the plan having moved it): the call is then not made.
std::optional<std::string> Prepare(Op op, const std::vector<std::string>& names, int cluster,
                                   Stubs& stubs, ClientState& state);

// What the service acknowledged for a call: the call's request id, and what its answer names (the
// job submitted, cancelled or reported, the hold, the DAG reservation; empty for the others).
struct Acknowledgement {
  std::string request_id;
  std::string id;
};

// Makes one call of kind `op` on cluster `cluster` (index into `names`) on `target` (Prepare's),
// waiting for the answer, within 30 s: again while it is answered UNAVAILABLE (the cluster moving
// between replicas, docs/ha.md), its changes carrying a request id of their own so that trying
// again is exact (transport/call_retry.h). When it answers OK, `acknowledged` (if given) gets what
// was acknowledged, the first answer's for a retry whose first try was applied.
grpc::Status Call(Op op, const std::vector<std::string>& names, int cluster, Stubs& stubs,
                  ClientState& state, const std::string& target = "",
                  Acknowledgement* acknowledged = nullptr);

}  // namespace resched::loadgen
