// A lower bound on the weighted sum of completion times, sum w_i C_i, by the linear-programming
// relaxation of dutot §3.3, solved with COIN-OR Clp.
//
// Time from now is cut into intervals I_j = (t_j, t_{j+1}] of doubling length (t_j = d / 2^(K-j)
// with d MRT's accepted makespan guess and K = floor(log2(d / t_min)), t_min the shortest time of
// any job on any width). x_ij in [0, 1] is the share of job i ending in I_j; S_ij is the least
// area (width x time) of job i on a width finishing within t_{j+1} (no x_ij when none does).
// Minimize sum_i w_i sum_j c_ij x_ij subject to sum_j x_ij >= 1 for every job and, for every j,
// sum_i sum_{l <= j} S_il x_il <= the processor time free in [now, now + t_{j+1}].
//
// Deviations, both so that the bound holds for every schedule: (1) a job ending in I_j is
// charged c_ij = max(t_j, its shortest time) rather than t_j (a job never ends before its
// shortest time, and I_0 would otherwise charge t_0 > C_i to a job shorter than t_0); (2) a last
// interval (2d, infinity) without a capacity row takes the jobs a schedule ends after 2d, where
// the paper's intervals stop at 2d (the LP then assumed every schedule ends by 2d). The free
// processor time comes from the free profile, so reservations and running jobs tighten the bound
// (the paper: m t_{j+1}).
#pragma once

#include "absl/status/statusor.h"
#include "core/offline/offline_planner.h"

namespace resched {

// sum_i w_i (C_i - now) over the jobs of `problem` is at least this, in weight x microseconds.
// INVALID_ARGUMENT when a job fits on no width; INTERNAL when Clp does not solve the LP;
// CANCELLED when `control` says stop.
absl::StatusOr<double> WeightedCompletionLowerBound(const OfflineProblem& problem,
                                                    const PlanControl& control);

}  // namespace resched
