// Sums over a cluster's jobs that the server reads at every call: a tenant's active jobs and the
// processor time its queued jobs hold (quotas, checked before each submission), and the
// processor time ended jobs used (the utilization in GetCluster and the metrics). ClusterPlan
// accounts each job whenever it marks it changed and forgets the jobs it prunes, so a read
// costs O(running jobs), never O(retained jobs). Integer processor-microseconds, so that
// accounting a job again and again leaves no rounding behind.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/numeric/int128.h"
#include "core/model/time.h"
#include "core/online/plan_state.h"

namespace resched {

class JobLedger {
 public:
  struct OwnerTotals {
    int active_jobs = 0;           // queued or running
    absl::int128 queued_area = 0;  // sum of k * (end - start) over queued jobs' allocations
  };

  // Counts `job` as it is now, in place of what was counted for it before.
  void Account(const JobRecord& job);
  // Drops a job the plan no longer retains.
  void Forget(const JobRecord& job);

  // The totals of `owner`'s jobs; zeros for an owner without any.
  OwnerTotals Owner(const std::string& owner) const;
  // Sum of k * (end - start) over retained ended jobs that ran.
  absl::int128 ended_area() const { return ended_area_; }
  // The earliest start among retained jobs that ran (running or ended); nullopt when none did.
  std::optional<Time> first_start() const;

 private:
  struct Counted {
    std::int32_t owner = 0;
    bool active = false;
    absl::int128 queued_area = 0;
    absl::int128 ended_area = 0;
    std::optional<Time> ran_from;
  };
  void Add(const Counted& counted, int sign);

  absl::flat_hash_map<std::int64_t, Counted> counted_;  // by JobRecord::sequence
  absl::flat_hash_map<std::string, std::int32_t> owner_index_;
  std::vector<OwnerTotals> owners_;
  absl::int128 ended_area_ = 0;
  std::multiset<Time> ran_from_;
};

}  // namespace resched
