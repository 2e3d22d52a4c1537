// The online policies' factories, each with its parameters already checked against the ranges
// the registry declares (core/registry/registry.cc maps names and parameters to these calls).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/model/cluster.h"
#include "core/online/policy.h"

namespace resched {

// Builds a fresh instance of the policy run inside each part of a partitioned policy.
using InnerPolicyFactory = std::function<std::unique_ptr<OnlinePolicy>()>;

// Saule et al. §3.1: first come, first served, each job at its earliest completion width.
std::unique_ptr<OnlinePolicy> MakeFcfsPolicy();
// Saule et al. §5.1: EASY backfilling (only the queue head holds a reservation).
// `decide_new_jobs_alone` false: every decision passes over the whole queue (the reference the
// incremental decisions are tested against, easy.cc).
std::unique_ptr<OnlinePolicy> MakeEasyPolicy(bool decide_new_jobs_alone = true);
// Saule et al. §5.1: conservative backfilling (every job keeps its reservation).
std::unique_ptr<OnlinePolicy> MakeConservativePolicy();
// Saule et al. §3.2: dual approximation + EDF, bisection on the stretch to `epsilon`.
struct DasedfOptions {
  double epsilon = 1e-3;  // relative precision of the search on the stretch S
};
std::unique_ptr<OnlinePolicy> MakeDasedfPolicy(const DasedfOptions& options);
// Saule et al. §6, Alg. 2: MoldableEDF inside DBOS(rho).
struct DbosOptions {
  double rho = 1.5;       // online factor: relaxes the best stretch found
  double epsilon = 1e-3;  // relative precision of the search on S
};
std::unique_ptr<OnlinePolicy> MakeDbosPolicy(const DbosOptions& options);
// Saule et al. §3.3.2, Alg. 1: Split(rho), jobs routed by p(1) class over [p_min_s, p_max_s].
// `keep_part_timelines` false: each submission plans its part in full (the reference of the
// kept part timelines, core/online/part_views.h).
struct SplitOptions {
  int rho = 2;             // resource augmentation factor: the number of classes
  double p_min_s = 1;      // smallest sequential time expected, seconds
  double p_max_s = 86400;  // largest sequential time expected, seconds
};
std::unique_ptr<OnlinePolicy> MakeSplitPolicy(const SplitOptions& options,
                                              InnerPolicyFactory make_inner,
                                              bool keep_part_timelines = true);
// Saule et al. §4: the main/auxiliary reservation scheme with x auxiliary processors and the
// max-stretch threshold t.
struct ReserveAuxOptions {
  int x = 5;     // processors of the auxiliary part (at most P - 1)
  double t = 2;  // max-stretch threshold above which the auxiliary part is tried
};
std::unique_ptr<OnlinePolicy> MakeReserveAuxPolicy(const ReserveAuxOptions& options,
                                                   InnerPolicyFactory make_inner);
// Saule et al. §5.4: Sabin et al.'s iterative moldable scheduling, and the improved variant.
std::unique_ptr<OnlinePolicy> MakeIterativePolicy();
std::unique_ptr<OnlinePolicy> MakeIterativeImprovedPolicy();
// A cluster of several speeds: one instance of the policy per processor group, each job placed
// in the group that completes it earliest with its run time scaled by the group's speed
// (grouped_policy.cc). The groups' counts must sum to the cluster's capacity.
// `keep_group_timelines` false: every submission rebuilds each group's timeline (the reference
// the tests compare the kept ones with).
std::unique_ptr<OnlinePolicy> MakeGroupedPolicy(std::vector<ProcessorGroup> groups,
                                                InnerPolicyFactory make_inner,
                                                bool keep_group_timelines = true);

}  // namespace resched
