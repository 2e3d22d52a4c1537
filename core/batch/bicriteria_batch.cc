// "bicriteria-batch": dutot §2.2's on-line batch framework around §3.2's bi-criteria algorithm,
// so that the paper's algorithm serves SubmitJob. "An arriving job is scheduled in the next
// starting batch": the jobs submitted while a batch runs wait; when the batch's last job ends,
// every job waiting becomes the next batch, planned at once by `bicriteria` from that instant on
// the free profile (its allocations are then guaranteed). A job that arrives while no batch runs
// starts a batch at once.
//
// Until its batch starts, a waiting job holds an estimate (guaranteed = false): its earliest-
// completion allocation after the current batch's planned end, so that the schedule stays whole
// and the jobs a reservation or another planner meets are accounted for. Deviations: (1) the
// paper's batches run on an empty machine; ours plan around the cluster's bookings; (2) a job of
// the running batch that ends early lets the next batch start earlier (when the batch is done),
// but the batch's other jobs keep their planned starts; (3) a reservation that displaces queued
// work (Rebuild) replans the current batch's queued jobs from now as one batch.
#include <algorithm>
#include <memory>
#include <set>

#include "core/batch/batch_policies.h"
#include "core/offline/planners.h"
#include "core/online/moldable_fit.h"
#include "core/online/policy.h"

namespace resched {
namespace {

class BicriteriaBatch final : public OnlinePolicy {
 public:
  explicit BicriteriaBatch(const BicriteriaOptions& options) : options_(options) {}

  std::unique_ptr<OnlinePolicy> Copy() const override {
    auto copy = std::make_unique<BicriteriaBatch>(options_);
    copy->batch_ = batch_;
    return copy;
  }

  void PlaceNew(PlanState& state, JobRecord& job) override {
    if (ForgetEnded(state); batch_.empty()) {
      StartBatch(state);
    } else {
      PlaceWaiting(state, job, BatchEnd(state));
    }
  }

  void Reoptimize(PlanState& state, Time) override {
    ForgetEnded(state);
    if (batch_.empty()) {
      StartBatch(state);
      return;
    }
    // The batch may end earlier than planned (an early finish): the waiting jobs follow it.
    const Time end = BatchEnd(state);
    for (JobRecord* job : state.queue()) {
      if (batch_.contains(job->job.id)) continue;
      const Allocation old = job->allocation;
      state.Unplace(*job);
      PlaceWaiting(state, *job, end);
      if (job->allocation.end > old.end) {  // never later than its estimate
        state.Unplace(*job);
        state.Place(*job, old, false);
      }
    }
  }

  void Rebuild(PlanState& state) override {
    ForgetEnded(state);
    std::vector<JobRecord*> current;
    for (JobRecord* job : state.queue()) {
      if (batch_.contains(job->job.id)) current.push_back(job);
    }
    if (current.empty()) {
      batch_.clear();
      StartBatch(state);
      return;
    }
    Plan(state, current);
    const Time end = BatchEnd(state);
    for (JobRecord* job : state.queue()) {
      if (!batch_.contains(job->job.id)) PlaceWaiting(state, *job, end);
    }
  }

  // Checks for the batch's end at every event.
  bool DecidesAtEvents() const override { return true; }

  // kBatchTable: a row per job of the running batch.
  static constexpr char kBatchTable[] = "bicriteria_batch.batch";
  PolicyImage Image() const override {
    PolicyImage image;
    PolicyImage::Table batch;
    for (const JobId& id : batch_) batch.push_back({id, {}});
    image.Put(kBatchTable, std::move(batch));
    return image;
  }
  absl::Status LoadImage(const PolicyImage& image, int) override {
    if (absl::Status s = image.KeepsOnly({kBatchTable}, "bicriteria-batch"); !s.ok()) return s;
    batch_.clear();
    if (const PolicyImage::Table* batch = image.Find(kBatchTable)) {
      for (const PolicyImage::Row& row : *batch) {
        if (absl::Status s = CheckRowShape(row, kBatchTable, 0, true); !s.ok()) return s;
        batch_.insert(row.job);
      }
    }
    return absl::OkStatus();
  }

 private:
  // Jobs of the batch that have ended are forgotten; the batch is over when none is left.
  void ForgetEnded(PlanState& state) {
    std::set<JobId> live;
    for (const std::vector<JobRecord*>* jobs :
         {static_cast<const std::vector<JobRecord*>*>(&state.queue()), &state.running()}) {
      for (const JobRecord* job : *jobs) {
        if (batch_.contains(job->job.id)) live.insert(job->job.id);
      }
    }
    batch_ = std::move(live);
  }

  // The planned end of the running batch (now when it is over).
  Time BatchEnd(PlanState& state) const {
    Time end = state.now();
    for (const std::vector<JobRecord*>* jobs :
         {static_cast<const std::vector<JobRecord*>*>(&state.queue()), &state.running()}) {
      for (const JobRecord* job : *jobs) {
        if (batch_.contains(job->job.id)) end = std::max(end, job->allocation.end);
      }
    }
    return end;
  }

  static void PlaceWaiting(PlanState& state, JobRecord& job, Time batch_end) {
    const Time not_before = std::max({state.now(), job.job.release, batch_end});
    if (auto fit = EarliestCompletion(state.timeline(), job.job.model, not_before)) {
      state.Place(job, *fit, /*guaranteed=*/false);
    }
  }

  // Every queued job becomes the batch, planned by bicriteria from now.
  void StartBatch(PlanState& state) {
    if (state.queue().empty()) return;
    Plan(state, state.queue());
  }

  void Plan(PlanState& state, const std::vector<JobRecord*>& jobs) {
    for (JobRecord* job : jobs) state.Unplace(*job);
    OfflineProblem problem;
    problem.free = state.timeline().Copy();
    problem.now = state.now();
    for (const JobRecord* job : jobs) {
      problem.jobs.push_back({job->job.id, job->job.model, job->job.weight, job->job.release});
    }
    absl::StatusOr<OfflinePlan> plan = MakeBicriteriaPlanner(options_)->Plan(problem, {});
    batch_.clear();
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      batch_.insert(jobs[i]->job.id);
      // Validated jobs always have a width on the machine, so the planner places every one.
      if (plan.ok()) state.Place(*jobs[i], plan->allocations[i], /*guaranteed=*/true);
    }
  }

  BicriteriaOptions options_;
  std::set<JobId> batch_;  // the running batch's jobs not yet ended
};

}  // namespace

std::unique_ptr<OnlinePolicy> MakeBicriteriaBatchPolicy(const BicriteriaOptions& options) {
  return std::make_unique<BicriteriaBatch>(options);
}

}  // namespace resched
