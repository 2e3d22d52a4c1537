// The machinery DASEDF (Saule et al., "Optimizing the stretch of independent tasks on a cluster",
// §3.2) and DBOS (§6, Alg. 2) share: the queued jobs as a deadline problem on top of what the
// cluster already holds, the Lemma 3.2 counting test, and the search on the target maximum stretch
// S. The deadline schedulers themselves (EDF, MoldableEDF) live in dasedf.cc and dbos.cc.
//
// The instance. Jobs not started are re-planned from scratch at every call; the "base" is the
// timeline's free capacity from now on without them (running jobs and external holds), which is how
// the paper's "running tasks taken into account" happens here. Job i has release r_i, earliest
// start max(now, r_i) and stretch denominator p_{i,1} (§2.1, §5: the sequential time, also for
// moldable jobs); for a target S its deadline is D_i = r_i + S·p_{i,1}, floored to the microsecond
// (completions are integers, so C_i <= D_i is s_i <= S). The objective is the maximum stretch of
// the queued jobs; running and ended jobs are fixed.
//
// The search (§3.2). Lower bound lo: every job alone on the base, at its first instant with enough
// free processors and with its shortest run time ("all the tasks complete immediately", refined by
// the base). Upper bound hi: the maximum stretch of a plan in hand; the first is the scheduler's
// plan for S = lo, built in full even where it misses deadlines ("any valid schedule provides an
// upper bound"). Then bisection, geometric because the range can span orders of magnitude: a
// candidate S is accepted when the scheduler's plan meets every deadline (hi becomes that plan's
// maximum stretch, <= S); a rejected S becomes lo, and its plan, built past the misses for as long
// as it can still beat hi, lowers hi when it does. Stop when hi <= lo·(1 + epsilon) (registry
// parameter "epsilon", default 1e-3) or after 64 rounds. The plan returned is the one of hi and the
// result S is its measured maximum stretch (as in Alg. 2, line 3), so S is met by the plan
// returned. If lo is accepted, the plan is optimal.
//
// Deviations:
// - The paper accepts S on the Lemma 3.2 counting test alone (EDF then meets every deadline within
//   (1 - 1/m)·p_i on m idle machines, Theorem 3.3). Here the machine is not idle (running jobs,
//   holds, future releases), so the counting test, generalized to the free area of the base, is a
//   necessary condition only: it rejects a candidate before any scheduling work, and the plan is
//   the truth. Greedy feasibility is not monotone in S on m > 1 machines, so the search relies on
//   "hi is met by a plan in hand", not on monotony.
// - The paper's search starts from hi = the FCFS schedule; ours starts from the plan at lo
//   (submission order, the FCFS plan, only if that one cannot be completed).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/model/job.h"
#include "core/online/plan_state.h"
#include "core/online/policy.h"
#include "core/timeline/timeline.h"

namespace resched {

// Earliest start of d on k processors from t0 whose run also ends by kTimeMax (the timeline answers
// kTimeMax itself past a hold that never ends).
std::optional<Time> EarliestFullRun(const Timeline& timeline, Time t0, Duration d, int k);

// Processor-microseconds, exact (a capacity of 2^28 times ten years overflows int64).
using Work = __int128;

// A queued job's widths and run times, computed once per job (Downey and the communication model
// are not free to evaluate, and a moldable job is looked at thousands of times).
struct JobShape {
  const JobRecord* record = nullptr;
  std::vector<int> widths;  // ascending; DASEDF keeps the smallest only
  std::vector<Duration> times;
  Duration p1 = 1;        // stretch denominator p_{i,1}
  Duration min_time = 0;  // shortest run time over the widths
  Work min_work = 0;      // least k·t(k) over the widths
};

class JobShapeCache {
 public:
  explicit JobShapeCache(bool all_widths) : all_widths_(all_widths) {}
  const JobShape& Get(const JobRecord& job, int capacity);
  // Forgets jobs that left the queue, once they outnumber it (amortized O(1) per call).
  void Retain(const std::vector<JobRecord*>& queue);

 private:
  bool all_widths_;
  absl::flat_hash_map<std::int64_t, std::unique_ptr<JobShape>> shapes_;  // by sequence
};

struct StretchJob {
  const JobRecord* record = nullptr;
  Time release = 0;
  Time earliest = 0;  // max(now, release)
  std::int64_t sequence = 0;
  Duration p1 = 1;
  std::span<const int> widths;
  std::span<const Duration> times;
  Duration min_time = 0;
  Work min_work = 0;
  // False when no allowed width fits what the base leaves free forever after its last change (a
  // hold that never ends): such a job may stay unplanned without the plan counting as incomplete.
  bool must_place = true;
};

// A job's deadline for the target S at hand.
struct Due {
  Time deadline = 0;
  std::int64_t sequence = 0;
  int job = 0;  // index into StretchInstance::jobs()
};

class StretchInstance {
 public:
  // `base`: maximal steps of free capacity from now on (the last one ends at kTimeMax).
  StretchInstance(Time now, int capacity, std::vector<TimelineStep> base,
                  std::vector<StretchJob> jobs);

  Time now() const { return now_; }
  int capacity() const { return capacity_; }
  const std::vector<StretchJob>& jobs() const { return jobs_; }
  const std::vector<TimelineStep>& base() const { return base_; }
  // True when the base only ever gains processors from now on (running jobs, no future holds): then
  // processors are interchangeable "available from" times and list scheduling is exact.
  bool base_non_decreasing() const { return non_decreasing_; }
  // The base as a timeline (built on first use).
  const Timeline& base_timeline() const;

  // D_i(S); kTimeMax when S is infinite or the deadline lies beyond.
  Time Deadline(const StretchJob& job, double s) const;
  // The jobs by non-decreasing D_i(S), ties in submission order.
  void DeadlineOrder(double s, std::vector<Due>& order) const;
  // No plan has a maximum stretch below this.
  double LowerBound() const { return lower_bound_; }
  // Lemma 3.2, generalized: the jobs due by each D_i need no more work than the base offers in
  // [now, D_i]. Necessary for S to be met; says nothing when it holds. `order` as above.
  bool PassesCountingTest(const std::vector<Due>& order) const;
  double MaxStretch(const std::vector<Allocation>& plan) const;
  double Stretch(int job, const Allocation& a) const {
    return static_cast<double>(a.end - jobs_[job].release) / static_cast<double>(jobs_[job].p1);
  }

 private:
  Work FreeArea(std::size_t& step, Work& area_before, Time until) const;

  Time now_;
  int capacity_;
  std::vector<TimelineStep> base_;
  std::vector<StretchJob> jobs_;
  bool non_decreasing_ = true;
  double lower_bound_ = 0;
  mutable std::unique_ptr<Timeline> base_timeline_;
};

// Free capacity of `timeline` from `now` on without the bookings of the jobs of `queue`.
std::vector<TimelineStep> BaseSteps(const Timeline& timeline, Time now,
                                    const std::vector<JobRecord*>& queue);
StretchInstance MakeStretchInstance(Time now, int capacity, std::vector<TimelineStep> base,
                                    const std::vector<JobRecord*>& queue, JobShapeCache& shapes);
// The same for `queue` on `timeline` as it is.
StretchInstance MakeStretchInstance(const Timeline& timeline, Time now,
                                    const std::vector<JobRecord*>& queue, JobShapeCache& shapes);

// A deadline scheduler: plans the jobs of `instance` in `order` (plan[i] for jobs()[i]) and returns
// whether every deadline is met. A job that misses its deadline is planned anyway, where it ends
// soonest among the widths the scheduler tries, so that the plan of a rejected S still bounds the
// answer; but as soon as a job's stretch exceeds `give_up_above` the scheduler stops and leaves the
// rest unplanned (k = 0). give_up_above = S stops at the first miss.
using DeadlineScheduler = bool (*)(const StretchInstance& instance, const std::vector<Due>& order,
                                   double give_up_above, std::vector<Allocation>& plan);

// EDF on the smallest width (dasedf.cc) and MoldableEDF (dbos.cc).
bool EdfSchedule(const StretchInstance& instance, const std::vector<Due>& order,
                 double give_up_above, std::vector<Allocation>& plan);
bool MoldableEdfSchedule(const StretchInstance& instance, const std::vector<Due>& order,
                         double give_up_above, std::vector<Allocation>& plan);

// `scheduler` for target S, giving up at the first miss unless told otherwise.
bool ScheduleForStretch(const StretchInstance& instance, DeadlineScheduler scheduler, double s,
                        std::vector<Allocation>& plan, double give_up_above = -1);

struct StretchSearchResult {
  std::vector<Allocation> plan;
  double stretch = 0;   // the plan's maximum stretch
  double rejected = 0;  // the largest S rejected, or the lower bound
  int plans_built = 0;
  int counting_rejections = 0;
};

StretchSearchResult SearchStretch(const StretchInstance& instance, DeadlineScheduler scheduler,
                                  double epsilon);

// The policy frame both algorithms share: at every call (submission, freed capacity, every event)
// every queued job is re-planned from scratch by Plan(). Queued jobs are promises only when they
// start now (guaranteed = false otherwise). Jobs whose allocation is unchanged are not touched, and
// a call that sees exactly the state its previous call left (same instant, queue and base) returns
// at once: a submission runs the policy twice at one instant.
class StretchPolicy : public OnlinePolicy {
 public:
  explicit StretchPolicy(bool all_widths) : shapes_(all_widths) {}
  void PlaceNew(PlanState& state, JobRecord&) override { Replan(state); }
  void Reoptimize(PlanState& state, Time) override { Replan(state); }
  void Rebuild(PlanState& state) override { Replan(state); }
  bool DecidesAtEvents() const override { return true; }

 protected:
  virtual std::vector<Allocation> Plan(const StretchInstance& instance) = 0;

 private:
  void Replan(PlanState& state);

  JobShapeCache shapes_;
  // What the last call left.
  Time memo_now_ = kTimeMin;
  std::vector<std::pair<const JobRecord*, Allocation>> memo_queue_;
  std::vector<TimelineStep> memo_base_;
};

}  // namespace resched
