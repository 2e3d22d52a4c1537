// The offline planners Replan chooses from by name (core/registry). One file per algorithm.
#pragma once

#include <cstdint>
#include <memory>

#include "core/offline/mrt.h"
#include "core/offline/offline_planner.h"
#include "core/online/policy.h"

namespace resched {

// dutot §4.1's baselines.
// "gang": every job on all the processors it may use (its widest width), by decreasing
// weight over time (Smith's ratio rule).
std::unique_ptr<OfflinePlanner> MakeGangPlanner();
// "seq-lptf": every job on its narrowest width (one processor when allowed), longest first.
std::unique_ptr<OfflinePlanner> MakeSequentialLptfPlanner();
// List scheduling (Graham) with MRT's allotment (the accepted guess, `epsilon` as for "mrt"), in
// one of three orders.
enum class ListOrder {
  kMrt,    // "list-mrt": MRT's order, shelf 1, shelf 2, small jobs
  kWlptf,  // "list-wlptf": decreasing weight / time (the paper: "sorted using the ratio between
           // weight and execution time")
  kSaf,    // "list-saf": smallest area (width x time) first
};
std::unique_ptr<OfflinePlanner> MakeListPlanner(ListOrder order, const MrtOptions& mrt);

// chrétien's "LIST" baseline (ltf.cc): largest task (work) first, each job at the width with the
// earliest completion when its turn comes.
std::unique_ptr<OfflinePlanner> MakeLtfPlanner();

// chrétien's successive LP approximations of the l_p sparse model (sparse_lp.cc): Algorithm 1
// ("sparse-lp"), or with §4.4's LTF completion of the fuzzy jobs ("sparse-lp-hybrid").
struct SparseLpOptions {
  double p = 0.1;            // the l_p quasi-norm's exponent
  int max_iterations = 200;  // maxIter: LPs solved per horizon before it counts as infeasible
  int time_steps = 100;      // the most steps LTF's makespan is cut into
  double time_limit_s = 10;  // LP solving before the best schedule found so far is the answer
  bool hybrid = false;       // §4.4's LTF completion of the fuzzy jobs
};
std::unique_ptr<OfflinePlanner> MakeSparseLpPlanner(const SparseLpOptions& options);
// The sparse LPs' statistics (OfflinePlan::statistics), as §5.3 records them: the LPs solved,
// and the share of jobs that an LP's solution places exactly (one slot at 1), averaged over
// those LPs (absent when none was solved).
inline constexpr char kSparseLpSolves[] = "lp_solves";
inline constexpr char kSparseLpExactJobShare[] = "exact_job_share";
// The time step chosen (seconds), and 1 when the time limit ended the search (else 0).
inline constexpr char kSparseLpStep[] = "time_step_s";
inline constexpr char kSparseLpOutOfTime[] = "out_of_time";

// dutot §3.2's bi-criteria batch algorithm (bicriteria.cc): MRT's `epsilon`, the batch order
// shuffled `shuffles` times from `seed`.
struct BicriteriaOptions {
  double epsilon = 1e-3;
  int shuffles = 10;
  std::uint64_t seed = 1;
};
std::unique_ptr<OfflinePlanner> MakeBicriteriaPlanner(const BicriteriaOptions& options);

}  // namespace resched
