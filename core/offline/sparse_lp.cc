// "sparse-lp" and "sparse-lp-hybrid": chrétien's successive LP approximations of the sparse model
// for the makespan (§4, Algorithm 1) and the hybrid of §4.4, solved with COIN-OR Clp.
//
// The model (§4.1): one column x_{i,s} per slot s = (configuration, start step) of job i; one row
// per job (its slots sum to 1, constraint 1) and one per time step of the horizon T (the
// processors of the slots running then fit, constraint 2). Relaxed to 0 <= x <= 1 (§4.2), the
// l_p quasi-norm sum_i ||x_i||_p (0 < p < 1) is minimized by successive linearizations: each
// LP's objective is eq. 4's subgradient at the previous solution, x^{p-1} f_i(x_i)^{1-p} on the
// slots in use and 0 elsewhere (§4.3), starting from x = 0. Algorithm 1's horizon loop is kept
// line by line: T starts at LTF's makespan and shrinks to one step below each schedule found;
// when nothing is found at LTF's makespan, T grows until something is, and that schedule is the
// answer (line 10, even when longer than LTF's). The hybrid (§4.4) keeps the jobs whose x_i is
// one "1" where the LP put them, schedules the others with LTF around them, and counts it found
// when the result ends within T.
//
// Adapted to the cluster (see offline_planner.h):
// - Constraint 2 is written with one usage column u_t per step (bounds [0, free capacity]) and
//   balance rows u_t - u_{t-1} = (widths starting at t) - (widths ending at t): the same
//   polytope in x, but a slot's column has 3 entries instead of 1 + its length, and the solves
//   took 40 % less time on chrétien §5.3's moldable instance (11.9 s to 7.0 s).
// - Time steps. The paper's run times are whole units. Ours are microseconds: the step is the
//   largest common divisor of every run time, multiplied up until LTF's makespan spans at most
//   `time_steps` steps, then doubled until the first horizon's LP has at most kMaxSlots columns
//   (a queue of hundreds of moldable jobs on hundreds of processors gets a coarser LP, not a
//   refusal). A run occupies the steps it touches (its length rounded up) and a step's capacity
//   is the least free capacity during it, so an integral LP solution always fits the real free
//   profile. The paper's workloads keep a step of one unit.
// - Time. The paper bounds nothing but maxIter. `time_limit_s` bounds the LP solving (checked
//   between simplex iterations, as is the call's deadline); when it is up, or when a growing
//   horizon outgrows the LP budget, the best schedule found so far (LTF's at worst) is the
//   answer.
// - Configurations: only the widths that take fewer steps than every narrower one (for
//   chrétien's ceil model, ceil(reqproc / n) repeats); on the LP's time grid a dominated width
//   never shortens a makespan. Slots that would not fit on the free profile even alone, or start
//   before the job's release, are left out.
// - The converted schedule is compacted: each exact job, in start order, moves to the earliest
//   start its allocation has there, never later; the rounding up of run times leaves holes
//   otherwise.
// - The hybrid never grows T: LTF's schedule is its answer when nothing shorter is found (a
//   schedule found on a longer horizon could only be longer than LTF's).
// - An infeasible LP ends the iterations at that T at once (its integer version is infeasible
//   too; the paper iterates to maxIter). T never grows past twice LTF's makespan.
// - The lower bound at line 1 is the larger of the longest job's shortest run and the least
//   total work over the machine's processors (the paper's, with each job's least work).
#include <ClpEventHandler.hpp>
#include <ClpPrimalColumnDantzig.hpp>
#include <ClpSimplex.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/offline/ltf.h"
#include "core/offline/planners.h"

namespace resched {
namespace {

// x_{i,s} at or above this is the "1" of an exact slot; the simplex's values are within 1e-9.
constexpr double kOne = 1 - 1e-6;
// Below this a value is a zero of eq. 4 (its x^{p-1} would only be rounding noise).
constexpr double kZero = 1e-7;
// The largest LP built: about 12 bytes per matrix element, and Clp's time grows faster. The time
// step is made coarser until the first horizon's LP fits; a horizon that grows past it ends the
// search with the best schedule found.
constexpr std::int64_t kMaxSlots = 500'000;
constexpr std::int64_t kMaxElements = 20'000'000;

using Clock = std::chrono::steady_clock;

// Stops Clp between iterations once the planner must stop (the call's deadline or cancellation)
// or its time limit is up; checked every kCheckEvery iterations, the checks cost next to nothing.
class StopCheck final : public ClpEventHandler {
 public:
  StopCheck(const PlanControl& control, Clock::time_point time_limit)
      : control_(control), time_limit_(time_limit) {}
  int event(Event which) override {
    if (which != endOfIteration || ++iterations_ % kCheckEvery != 0) return -1;
    return control_.Stop() || Clock::now() >= time_limit_ ? 0 : -1;  // 0: Clp stops (status 5)
  }
  ClpEventHandler* clone() const override { return new StopCheck(*this); }

 private:
  static constexpr int kCheckEvery = 64;
  const PlanControl& control_;
  Clock::time_point time_limit_;
  std::int64_t iterations_ = 0;
};

struct Configuration {
  int width = 0;
  Duration length = 0;
  int steps = 0;  // length in steps, rounded up
};

// The columns and matrix elements of a horizon's LP, before slots that do not fit are left out.
struct LpSize {
  std::int64_t slots = 0;
  std::int64_t elements = 0;
  bool Fits() const { return slots <= kMaxSlots && elements <= kMaxElements; }
};

struct Slot {
  int job = 0;
  int configuration = 0;
  int start = 0;  // step
};

// One horizon's LP: its slots (the columns) and the Clp model, kept between iterations so that
// each solve starts from the previous basis (only the objective changes).
struct HorizonLp {
  std::vector<Slot> slots;
  std::vector<int> first_slot;  // per job, then one past the last slot
  ClpSimplex clp;
};

// The jobs that the LP solution `x` places exactly (one of their slots at 1).
int ExactJobs(const HorizonLp& lp, const std::vector<double>& x) {
  int exact = 0;
  for (std::size_t i = 0; i + 1 < lp.first_slot.size(); ++i) {
    for (int s = lp.first_slot[i]; s < lp.first_slot[i + 1]; ++s) {
      if (x[s] >= kOne) {
        ++exact;
        break;
      }
    }
  }
  return exact;
}

class SparseLpPlanner final : public OfflinePlanner {
 public:
  SparseLpPlanner(double p, int max_iterations, int time_steps, double time_limit_s, bool hybrid)
      : p_(p),
        max_iterations_(max_iterations),
        time_steps_(time_steps),
        time_limit_s_(time_limit_s),
        hybrid_(hybrid) {}

  absl::StatusOr<OfflinePlan> Plan(const OfflineProblem& problem,
                                   const PlanControl& control) const override;

 private:
  struct Instance {
    const OfflineProblem* problem = nullptr;
    Duration step = 1;
    std::vector<std::vector<Configuration>> configurations;  // per job
    std::vector<int> release_step;                           // per job
    std::vector<int> capacity;                               // per step, up to the cap on T
  };
  struct Candidate {
    std::vector<Allocation> allocations;
    int makespan_steps = 0;
  };

  static LpSize SizeOf(const Instance& instance, int horizon);
  // Sets the time step: the largest common divisor of the run times (`unit`), multiplied until
  // LTF's makespan spans at most `time_steps` steps and the first horizon's LP fits; each job keeps
  // only the configurations with fewer steps than every narrower one.
  static void ChooseStep(Instance& instance, Duration unit, Duration ltf_span, int time_steps);
  absl::Status BuildLp(const Instance& instance, int horizon, HorizonLp& lp) const;
  void SetObjective(const std::vector<double>& x, HorizonLp& lp) const;
  // The schedule of the LP solution `x`: exact jobs at their slots (compacted); the others by
  // LTF around them for the hybrid. Nothing when the pure algorithm finds a fuzzy job.
  absl::StatusOr<std::optional<Candidate>> Convert(const Instance& instance, const HorizonLp& lp,
                                                   const std::vector<double>& x) const;

  double p_;
  int max_iterations_;
  int time_steps_;
  double time_limit_s_;
  bool hybrid_;
};

Time EndOf(const OfflineProblem& problem, const std::vector<Allocation>& allocations) {
  Time end = problem.now;
  for (const Allocation& a : allocations) end = std::max(end, a.end);
  return end;
}

int StepsOf(Duration length, Duration step) { return static_cast<int>((length + step - 1) / step); }

LpSize SparseLpPlanner::SizeOf(const Instance& instance, int horizon) {
  LpSize size;
  for (std::size_t i = 0; i < instance.configurations.size(); ++i) {
    for (const Configuration& config : instance.configurations[i]) {
      const std::int64_t starts = std::max<std::int64_t>(
          0, std::int64_t{horizon} - config.steps - instance.release_step[i] + 1);
      size.slots += starts;
      size.elements += starts * 3;
    }
  }
  return size;
}

void SparseLpPlanner::ChooseStep(Instance& instance, Duration unit, Duration ltf_span,
                                 int time_steps) {
  const OfflineProblem& problem = *instance.problem;
  const std::size_t n = problem.jobs.size();
  const std::vector<std::vector<Configuration>> faster = instance.configurations;
  unit = std::max<Duration>(unit, 1);
  Duration multiple = std::max<Duration>(1, (ltf_span / unit + time_steps - 1) / time_steps);
  while (true) {
    instance.step = unit * multiple;
    instance.release_step.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      const Time release = problem.jobs[i].release;
      if (release > problem.now) {
        instance.release_step[i] = StepsOf(release - problem.now, instance.step);
      }
      instance.configurations[i].clear();
      for (Configuration config : faster[i]) {
        config.steps = StepsOf(config.length, instance.step);
        const std::vector<Configuration>& kept = instance.configurations[i];
        if (kept.empty() || config.steps < kept.back().steps) {
          instance.configurations[i].push_back(config);
        }
      }
    }
    const int first_horizon = StepsOf(ltf_span, instance.step);
    if (first_horizon <= 1 || SizeOf(instance, first_horizon).Fits()) return;
    multiple *= 2;
  }
}

absl::Status SparseLpPlanner::BuildLp(const Instance& instance, int horizon, HorizonLp& lp) const {
  const OfflineProblem& problem = *instance.problem;
  const int n = static_cast<int>(problem.jobs.size());
  lp.slots.clear();
  lp.first_slot.assign(1, 0);
  std::vector<CoinBigIndex> starts = {0};
  std::vector<int> rows;
  std::vector<double> values;
  for (int i = 0; i < n; ++i) {
    const std::vector<Configuration>& configurations = instance.configurations[i];
    for (int c = 0; c < static_cast<int>(configurations.size()); ++c) {
      const Configuration& config = configurations[c];
      for (int s = instance.release_step[i]; s + config.steps <= horizon; ++s) {
        bool fits = true;
        for (int t = s; t < s + config.steps && fits; ++t)
          fits = instance.capacity[t] >= config.width;
        if (!fits) continue;
        lp.slots.push_back({i, c, s});
        rows.push_back(i);
        values.push_back(1);
        rows.push_back(n + s);  // starts: the usage rises by its width at step s
        values.push_back(-config.width);
        if (s + config.steps < horizon) {  // and falls back when it ends
          rows.push_back(n + s + config.steps);
          values.push_back(config.width);
        }
        starts.push_back(static_cast<CoinBigIndex>(rows.size()));
      }
    }
    lp.first_slot.push_back(static_cast<int>(lp.slots.size()));
  }
  // The usage u_t of each step, a column of bounds [0, capacity_t]; the balance row of step t
  // says u_t - u_{t-1} = widths starting at t - widths ending at t.
  for (int t = 0; t < horizon; ++t) {
    rows.push_back(n + t);
    values.push_back(1);
    if (t + 1 < horizon) {
      rows.push_back(n + t + 1);
      values.push_back(-1);
    }
    starts.push_back(static_cast<CoinBigIndex>(rows.size()));
  }
  const int slot_columns = static_cast<int>(lp.slots.size());
  const int columns = slot_columns + horizon;
  std::vector<double> column_lower(columns, 0);
  std::vector<double> column_upper(columns, 1);
  for (int t = 0; t < horizon; ++t) column_upper[slot_columns + t] = instance.capacity[t];
  std::vector<double> objective(columns, 0);
  std::vector<double> row_lower(n + horizon, 0);
  std::vector<double> row_upper(n + horizon, 0);
  for (int i = 0; i < n; ++i) row_lower[i] = row_upper[i] = 1;
  lp.clp = ClpSimplex();
  lp.clp.setLogLevel(0);
  lp.clp.loadProblem(columns, n + horizon, starts.data(), rows.data(), values.data(),
                     column_lower.data(), column_upper.data(), objective.data(), row_lower.data(),
                     row_upper.data());
  lp.clp.setOptimizationDirection(1);  // minimize
  // Tens of thousands of columns over a hundred rows: Dantzig's pricing (one reduced-cost
  // update per pivot) took 24 % less time than Clp's default steepest edge on chrétien §5.3's
  // moldable instance (bench/replan_bench: 7.0 s against 9.2 s), for more pivots.
  ClpPrimalColumnDantzig pricing;
  lp.clp.setPrimalColumnPivotAlgorithm(pricing);
  return absl::OkStatus();
}

void SparseLpPlanner::SetObjective(const std::vector<double>& x, HorizonLp& lp) const {
  double* objective = lp.clp.objective();
  for (std::size_t i = 0; i + 1 < lp.first_slot.size(); ++i) {
    const int begin = lp.first_slot[i];
    const int end = lp.first_slot[i + 1];
    double norm_p = 0;  // sum of x^p: f_i(x_i) = norm_p^{1/p}
    for (int s = begin; s < end; ++s) {
      if (x[s] > kZero) norm_p += std::pow(x[s], p_);
    }
    const double f_scale = norm_p > 0 ? std::pow(std::pow(norm_p, 1 / p_), 1 - p_) : 0;
    for (int s = begin; s < end; ++s) {
      objective[s] = x[s] > kZero ? std::pow(x[s], p_ - 1) * f_scale : 0;  // eq. 4
    }
  }
}

absl::StatusOr<std::optional<SparseLpPlanner::Candidate>> SparseLpPlanner::Convert(
    const Instance& instance, const HorizonLp& lp, const std::vector<double>& x) const {
  const OfflineProblem& problem = *instance.problem;
  const int n = static_cast<int>(problem.jobs.size());
  std::vector<int> exact_slot(n, -1);
  for (int i = 0; i < n; ++i) {
    for (int s = lp.first_slot[i]; s < lp.first_slot[i + 1]; ++s) {
      if (x[s] >= kOne) exact_slot[i] = s;
    }
    if (exact_slot[i] < 0 && !hybrid_) return std::nullopt;
  }
  std::vector<int> exact;
  for (int i = 0; i < n; ++i) {
    if (exact_slot[i] >= 0) exact.push_back(i);
  }
  std::sort(exact.begin(), exact.end(), [&](int a, int b) {
    return lp.slots[exact_slot[a]].start < lp.slots[exact_slot[b]].start;
  });

  Timeline timeline = problem.free;
  std::vector<Allocation> allocations(n);
  std::vector<ReservationId> bookings(n);
  for (int i : exact) {
    const Slot& slot = lp.slots[exact_slot[i]];
    const Configuration& config = instance.configurations[i][slot.configuration];
    const Time start = problem.now + slot.start * instance.step;
    absl::StatusOr<ReservationId> id = timeline.Add(start, start + config.length, config.width);
    if (!id.ok()) {
      return absl::InternalError(
          absl::StrFormat("sparse LP: job '%s' does not fit its exact slot at step %d: %s",
                          problem.jobs[i].id, slot.start, id.status().message()));
    }
    bookings[i] = *id;
    allocations[i] = {config.width, start, start + config.length};
  }
  // Compaction: each exact job, in start order, to its earliest start there (never later).
  for (int i : exact) {
    Allocation& a = allocations[i];
    if (absl::Status removed = timeline.Remove(bookings[i]); !removed.ok()) return removed;
    const Time not_before = std::max(problem.now, problem.jobs[i].release);
    const Time start = timeline.EarliestStart(not_before, a.end - a.start, a.k).value_or(a.start);
    a = {a.k, std::min(start, a.start), std::min(start, a.start) + (a.end - a.start)};
    absl::StatusOr<ReservationId> id = timeline.Add(a.start, a.end, a.k);
    if (!id.ok()) return id.status();
    bookings[i] = *id;
  }
  if (static_cast<int>(exact.size()) < n) {  // the hybrid's fuzzy jobs, by LTF
    OfflineProblem rest{{}, std::move(timeline), problem.now};
    std::vector<int> index;
    for (int i = 0; i < n; ++i) {
      if (exact_slot[i] < 0) {
        rest.jobs.push_back(problem.jobs[i]);
        index.push_back(i);
      }
    }
    absl::StatusOr<std::vector<ListEntry>> order = LtfOrder(rest);
    if (!order.ok()) return order.status();
    absl::StatusOr<std::vector<Allocation>> listed = ListSchedule(rest, *order);
    if (!listed.ok()) return listed.status();
    for (std::size_t j = 0; j < index.size(); ++j) allocations[index[j]] = (*listed)[j];
  }
  Candidate candidate{std::move(allocations), 0};
  candidate.makespan_steps =
      StepsOf(EndOf(problem, candidate.allocations) - problem.now, instance.step);
  return candidate;
}

absl::StatusOr<OfflinePlan> SparseLpPlanner::Plan(const OfflineProblem& problem,
                                                  const PlanControl& control) const {
  const int n = static_cast<int>(problem.jobs.size());
  const int m = problem.free.capacity();
  if (n == 0) return OfflinePlan{};
  // Line 2: LTF's schedule, the first answer and the first horizon.
  absl::StatusOr<std::vector<ListEntry>> ltf_order = LtfOrder(problem);
  if (!ltf_order.ok()) return ltf_order.status();
  absl::StatusOr<std::vector<Allocation>> ltf = ListSchedule(problem, *ltf_order);
  if (!ltf.ok()) return ltf.status();

  Instance instance;
  instance.problem = &problem;
  Duration unit = 0;
  double longest_run = 0;  // line 1's lower bound, microseconds
  double least_work = 0;
  instance.configurations.resize(n);
  for (int i = 0; i < n; ++i) {
    const RuntimeModel& model = problem.jobs[i].model;
    Duration best = std::numeric_limits<Duration>::max();
    double work = std::numeric_limits<double>::infinity();
    for (int k : model.Widths(m)) {  // ascending
      const Duration length = model.TimeOn(k);
      unit = std::gcd(unit, length);
      work = std::min(work, static_cast<double>(k) * static_cast<double>(length));
      if (length < best) {
        instance.configurations[i].push_back({k, length, 0});
        best = length;
      }
    }
    longest_run = std::max(longest_run, static_cast<double>(best));
    least_work += work;
  }
  const Duration lower_bound =
      static_cast<Duration>(std::ceil(std::max(longest_run, least_work / m)));
  const Duration ltf_span = EndOf(problem, *ltf) - problem.now;
  ChooseStep(instance, unit, ltf_span, time_steps_);
  const int ltf_steps = StepsOf(ltf_span, instance.step);
  const int max_horizon = 2 * ltf_steps;
  instance.capacity.resize(max_horizon);
  for (int t = 0; t < max_horizon; ++t) {
    const Time from = problem.now + t * instance.step;
    instance.capacity[t] = problem.free.MinFree(from, from + instance.step);
  }
  const int lower_bound_steps = static_cast<int>(lower_bound / instance.step);

  std::vector<Allocation> schedule = std::move(*ltf);
  int horizon = ltf_steps;
  bool end = false;
  bool increase = false;
  HorizonLp lp;
  int lp_solves = 0;
  double exact_share_sum = 0;
  const Clock::time_point time_limit =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(time_limit_s_));
  bool out_of_time = false;
  while (horizon > lower_bound_steps && !end && horizon <= max_horizon && !out_of_time) {  // line 3
    // Only a growing horizon can outgrow the LP ChooseStep sized: the best found is the answer.
    if (!SizeOf(instance, horizon).Fits()) break;
    if (absl::Status built = BuildLp(instance, horizon, lp); !built.ok()) return built;
    const StopCheck stop_check(control, time_limit);
    lp.clp.passInEventHandler(&stop_check);     // Clp keeps a clone
    std::vector<double> x(lp.slots.size(), 0);  // line 5
    bool found = false;
    bool every_job_has_a_slot = true;
    for (int i = 0; i < n; ++i) every_job_has_a_slot &= lp.first_slot[i + 1] > lp.first_slot[i];
    for (int iteration = 1; every_job_has_a_slot && iteration < max_iterations_ && !found;
         ++iteration) {  // line 6
      if (control.Stop()) return absl::CancelledError("sparse LP: planning was stopped");
      if (Clock::now() >= time_limit) {
        out_of_time = true;
        break;
      }
      SetObjective(x, lp);         // line 7
      lp.clp.primal();             // line 8, from the previous basis
      if (lp.clp.status() == 5) {  // stopped by StopCheck
        if (control.Stop()) return absl::CancelledError("sparse LP: planning was stopped");
        out_of_time = true;
        break;
      }
      if (lp.clp.isProvenPrimalInfeasible()) break;
      if (!lp.clp.isProvenOptimal()) {
        return absl::InternalError(absl::StrFormat(
            "Clp did not solve the sparse LP (status %d, %d jobs, %d slots, horizon %d steps)",
            lp.clp.status(), n, lp.slots.size(), horizon));
      }
      const double* solution = lp.clp.primalColumnSolution();
      x.assign(solution, solution + lp.slots.size());
      ++lp_solves;
      exact_share_sum += static_cast<double>(ExactJobs(lp, x)) / n;
      absl::StatusOr<std::optional<Candidate>> candidate = Convert(instance, lp, x);  // line 9
      if (!candidate.ok()) return candidate.status();
      if (*candidate && (*candidate)->makespan_steps <= horizon) {  // lines 10-13
        // Within a step a schedule may still end later than the one kept (LTF's, first): kept
        // unless T grows (there line 10 takes whatever is found).
        if (increase || EndOf(problem, (*candidate)->allocations) <= EndOf(problem, schedule)) {
          schedule = std::move((*candidate)->allocations);
        }
        horizon = (*candidate)->makespan_steps - 1;
        found = true;
        end = increase;  // lines 14-15
      }
    }
    if (!found && !out_of_time) {  // lines 17-23
      if (horizon == ltf_steps && !hybrid_) increase = true;
      if (increase) {
        ++horizon;
      } else {
        end = true;
      }
    }
  }
  OfflinePlan plan{std::move(schedule),
                   lower_bound,
                   {{kSparseLpSolves, lp_solves},
                    {kSparseLpStep, static_cast<double>(instance.step) / kMicrosPerSecond},
                    {kSparseLpOutOfTime, out_of_time ? 1 : 0}}};
  if (lp_solves > 0) plan.statistics[kSparseLpExactJobShare] = exact_share_sum / lp_solves;
  return plan;
}

}  // namespace

std::unique_ptr<OfflinePlanner> MakeSparseLpPlanner(const SparseLpOptions& options) {
  return std::make_unique<SparseLpPlanner>(options.p, options.max_iterations, options.time_steps,
                                           options.time_limit_s, options.hybrid);
}

}  // namespace resched
