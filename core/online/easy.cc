// EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001), the "aggressive" backfilling that
// Saule et al. §5.1 contrast with conservative backfilling. At every event, in submission
// order: jobs start while they fit now; the first job that does not becomes the head and gets
// a reservation at its earliest completion; any later job that fits now without touching the
// head's reservation starts now (backfills). Jobs not started and not at the head are planned
// FCFS-like behind the head as estimates (guaranteed = false): only the head's reservation is
// a promise. Moldable jobs take the earliest-completion width (ties: fewer processors); a job
// started now takes the earliest-completion width among those that fit now. Deviation: jobs
// whose release lies in the future have not arrived in the EASY sense; they are estimates and
// never become the head until released. The queue is walked in order of arrival (release, then
// submission), as EASY orders its queue: a job submitted earlier that arrives later must not
// take the head from a job already promised its reservation.
//
// Deciding for a new job alone. A full pass re-plans every waiting job's
// estimate, O(queue). Where nothing has changed since the last pass but the clock, with no event
// in between (no job due to start, none released, no booking added or released: the timeline's
// change record is empty), a pass at the new instant gives the same plan: capacity only comes
// back at events. A new job that comes last in arrival order then changes only its own place:
// - it starts now if it fits now beside the running jobs and the head's reservation (the pass's
//   timeline before the estimates, kept as `committed`), provided the estimates leave it room
//   too: every estimate then stays where it is (it was the earliest, and is still possible);
//   otherwise the full pass decides;
// - without a head it becomes the head, at its earliest completion;
// - else it waits, its estimate placed behind the last one.
// The reference, `MakeEasyPolicy(false)`, passes over the whole queue every time.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/online/moldable_fit.h"
#include "core/online/policies.h"
#include "core/online/policy.h"

namespace resched {
namespace {

class Easy final : public OnlinePolicy {
 public:
  explicit Easy(bool decide_new_jobs_alone) : decide_new_jobs_alone_(decide_new_jobs_alone) {}
  // A copy follows no record (its plan's timeline is a copy): its first call passes in full.
  std::unique_ptr<OnlinePolicy> Copy() const override {
    return std::make_unique<Easy>(decide_new_jobs_alone_);
  }
  void PlaceNew(PlanState& state, JobRecord& job) override {
    if (!decide_new_jobs_alone_ || !PlaceAlone(state, job)) Decide(state);
  }
  void Reoptimize(PlanState& state, Time /*freed_from*/) override {
    if (!decide_new_jobs_alone_ || !Unchanged(state, 0)) Decide(state);
  }
  void Rebuild(PlanState& state) override { Decide(state); }
  bool DecidesAtEvents() const override { return true; }

 private:
  // What the last full pass left, for deciding a new job alone.
  struct LastPass {
    std::uint64_t stream = 0;  // the timeline's change record since the pass; 0: none
    std::size_t queued = 0;    // queue length after the pass (or the last job decided alone)
    bool has_head = false;
    Time estimates_from = 0;            // the start of the last estimate, else the head's, else now
    Time next_due = kTimeMax;           // the earliest start after now among the queued jobs
    Time next_release = kTimeMax;       // the earliest release after now among the queued jobs
    Time last_release = kTimeMin;       // the latest release among the queued jobs
    std::optional<Timeline> committed;  // the timeline before the estimates were placed
  };

  void Decide(PlanState& state) {
    last_ = LastPass{};
    for (JobRecord* job : state.queue()) state.Unplace(*job);
    const Time now = state.now();
    std::vector<JobRecord*> by_arrival = state.queue();
    std::stable_sort(
        by_arrival.begin(), by_arrival.end(),
        [](const JobRecord* a, const JobRecord* b) { return a->job.release < b->job.release; });
    JobRecord* head = nullptr;
    std::vector<JobRecord*> waiting;
    for (JobRecord* job : by_arrival) {
      const bool arrived = job->job.release <= now;
      if (arrived) {
        if (auto fit = StartingAt(state.timeline(), job->job.model, now)) {
          state.Place(*job, *fit, /*guaranteed=*/true);
          continue;
        }
      }
      if (arrived && head == nullptr) {
        head = job;
        if (auto fit = EarliestCompletion(state.timeline(), job->job.model, now)) {
          state.Place(*job, *fit, /*guaranteed=*/true);
        }
        continue;
      }
      waiting.push_back(job);
    }
    if (decide_new_jobs_alone_) last_.committed = state.timeline().Copy();
    // Estimates for the rest, in order, behind the head.
    Time previous_start = head != nullptr ? head->allocation.start : now;
    for (JobRecord* job : waiting) {
      const Time not_before = std::max({now, job->job.release, previous_start});
      if (auto fit = EarliestCompletion(state.timeline(), job->job.model, not_before)) {
        state.Place(*job, *fit, /*guaranteed=*/false);
        previous_start = fit->start;
      }
    }
    if (!decide_new_jobs_alone_) return;
    last_.stream = state.timeline().RecordChanges();
    last_.queued = state.queue().size();
    last_.has_head = head != nullptr;
    last_.estimates_from = previous_start;
    for (const JobRecord* job : state.queue()) Remember(*job, now);
  }

  // Folds a queued job into what a new job decided alone is checked against.
  void Remember(const JobRecord& job, Time now) {
    // A job placed at now starts before the plan returns (ClusterPlan starts what is due).
    if (job.placed && job.allocation.start > now) {
      last_.next_due = std::min(last_.next_due, job.allocation.start);
    }
    if (job.job.release > now) last_.next_release = std::min(last_.next_release, job.job.release);
    last_.last_release = std::max(last_.last_release, job.job.release);
  }

  // True when a pass now would leave every queued job where it is: nothing changed on the
  // timeline since the last pass, no queued job is due or released since, and the queue only
  // lost jobs that started (a cancel releases a booking) and gained `added` new ones.
  bool Unchanged(const PlanState& state, std::size_t added) const {
    const Timeline& timeline = state.timeline();
    return last_.stream != 0 && timeline.change_stream() == last_.stream &&
           timeline.changes().empty() && state.now() < last_.next_due &&
           state.now() < last_.next_release && state.queue().size() <= last_.queued + added;
  }

  // Places `job` as the full pass would, without passing over the queue; false, with nothing
  // changed, where that is not known to be the same.
  bool PlaceAlone(PlanState& state, JobRecord& job) {
    // Last in arrival order (ties: submission order), so no job's pass comes after it.
    if (!Unchanged(state, 1) || job.job.release < last_.last_release) return false;
    const Time now = state.now();
    const RuntimeModel& model = job.job.model;
    Timeline& timeline = state.timeline();
    std::optional<Allocation> placed;
    bool guaranteed = true;
    if (job.job.release <= now) {
      // Without a head every queued job started: there are no estimates, so the timeline is
      // the committed one.
      if (auto fit = StartingAt(*last_.committed, model, now)) {
        // The estimates must leave it room, or they would move.
        if (last_.has_head && timeline.MinFree(fit->start, fit->end) < fit->k) return false;
        placed = fit;
      } else if (!last_.has_head) {
        placed = EarliestCompletion(timeline, model, now);
        if (placed) {
          last_.has_head = true;
          last_.estimates_from = placed->start;
        }
      }
      if (placed) (void)last_.committed->ForceAdd(placed->start, placed->end, placed->k);
    }
    if (!placed) {
      // Waiting: an estimate behind the last one.
      const Time not_before = std::max({now, job.job.release, last_.estimates_from});
      placed = EarliestCompletion(timeline, model, not_before);
      if (!placed) return false;
      guaranteed = false;
      last_.estimates_from = placed->start;
    }
    state.Place(job, *placed, guaranteed);
    // The change record holds this booking alone: read.
    timeline.DropChanges(timeline.changes().size());
    last_.queued = state.queue().size();
    Remember(job, now);
    return true;
  }

  bool decide_new_jobs_alone_;
  LastPass last_;
};

}  // namespace

std::unique_ptr<OnlinePolicy> MakeEasyPolicy(bool decide_new_jobs_alone) {
  return std::make_unique<Easy>(decide_new_jobs_alone);
}

}  // namespace resched
