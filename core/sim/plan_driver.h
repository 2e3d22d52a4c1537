// A SimDriver over a ClusterPlan: the simulator runs the same plan code the server runs on every
// RPC, and measures the wall-clock time spent in it (for speed reports).
#pragma once

#include <chrono>
#include <vector>

#include "core/plan/cluster_plan.h"
#include "core/sim/sim_driver.h"

namespace resched {

class PlanDriver final : public SimDriver {
 public:
  explicit PlanDriver(ClusterPlan& plan) : plan_(plan) {}

  absl::StatusOr<JobId> Submit(const Job& job) override;
  absl::Status ReportEnded(const JobId& id, Time t) override;
  absl::Status AdvanceTo(Time t) override;
  absl::StatusOr<std::vector<JobView>> ActiveJobs() override;

  // Wall-clock seconds spent inside ClusterPlan calls: the policy and the plan's bookkeeping.
  double plan_seconds() const { return std::chrono::duration<double>(in_plan_).count(); }

 private:
  // Runs `call` on the plan, timed; then drops the plan's change log as the server does after
  // publishing it, so the log does not grow with the replay.
  template <class Call>
  auto Timed(Call&& call) {
    const auto begin = std::chrono::steady_clock::now();
    auto result = call();
    in_plan_ += std::chrono::steady_clock::now() - begin;
    (void)plan_.TakeChangedJobs();
    return result;
  }

  ClusterPlan& plan_;
  // Submitted jobs not yet seen ended, submission order. Kept here because the plan forgets ended
  // jobs past its retention limit.
  std::vector<JobId> active_;
  std::chrono::steady_clock::duration in_plan_{};
};

}  // namespace resched
