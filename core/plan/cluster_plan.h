// One cluster's plan: its timeline, its jobs (queued, running, ended), its external
// reservations and its clock, driven by an online policy. Pure and deterministic: the server
// wraps it with locking, time and protobuf conversion. Every method either applies its whole
// change or returns an error having changed nothing.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "core/dag/dag_plan.h"
#include "core/metrics/validate.h"
#include "core/model/cluster.h"
#include "core/model/dag.h"
#include "core/model/job.h"
#include "core/online/plan_state.h"
#include "core/online/policy.h"
#include "core/online/start_bounds.h"
#include "core/plan/job_ledger.h"
#include "core/registry/registry.h"
#include "core/timeline/timeline.h"

namespace resched {

struct ExternalReservation {
  std::string id;
  int k = 0;
  Time start = 0;
  Time end = 0;
  std::string reason;
  ReservationId booking = -1;
  // On processor groups of different speeds: the group whose processors it holds; -1: any.
  int group = -1;
};

// What the engine running a DAG's tasks reported of one: nothing yet (reserved), its start, its
// end, or, for a descendant of a failed task, that it will never run (released).
enum class DagTaskState { kReserved, kRunning, kFinished, kFailed, kReleased };
enum class DagTaskEvent { kStarted, kFinished, kFailed };
std::string_view DagTaskStateName(DagTaskState state);

// A committed DAG reservation (ReserveDAG): one booking per task, released as a whole, or task by
// task as the engine reports their ends.
struct DagTaskBooking {
  std::string task;
  Allocation allocation;  // as planned
  ReservationId booking = -1;
  // On processor groups of different speeds: the group the task runs in (TaskReservation::group).
  int group = -1;
  DagTaskState state = DagTaskState::kReserved;
  std::optional<Time> started;  // as reported
  std::optional<Time> ended;    // as reported (finished or failed)
  // From when its processors were given back before its planned end (an early end, a release
  // after its parent failed); kTimeMax while it holds them to the end.
  Time released_at = kTimeMax;
  // The part of its allocation it held: [start, min(end, released_at)), empty when released
  // before its start.
  Allocation Held() const;
};
struct DagReservation {
  std::string id;  // "d<n>"
  std::string algorithm;
  std::string label;
  std::string owner;  // the tenant that reserved it; empty when the server has no tenants
  Time release = 0;
  std::vector<DagTaskBooking> tasks;  // in the DAG's task order
  std::vector<Edge> edges;
  Time completion = 0;
  double cpu_hours = 0;
};

struct ClusterLimits {
  int max_active_jobs = 100'000;     // queued + running
  int max_retained_ended = 100'000;  // ended jobs kept for GetJob/ListJobs; oldest dropped
  int max_reservations = 10'000;
  int max_dag_reservations = 10'000;  // not yet completed
  int max_retained_dags = 10'000;     // completed ones kept for GetDagReservation; oldest dropped
};

struct ClusterPlanImage;
struct PlanChange;

// One job of a committed Replan: where the offline planner put it.
struct PlannedJob {
  JobId id;
  Allocation allocation;
};

class ClusterPlan;

// Makes a SIMULATED cluster's periodic Replan (ClusterSpec::replan) when AdvanceTo reaches its
// due instant: the plan to apply at plan.now(), or nullopt to keep the queue as it is
// (core/plan/periodic_replan.h).
class PeriodicReplanner {
 public:
  virtual ~PeriodicReplanner() = default;
  virtual std::optional<std::vector<PlannedJob>> PlanAt(const ClusterPlan& plan) = 0;
};

class ClusterPlan {
 public:
  static absl::StatusOr<std::unique_ptr<ClusterPlan>> Create(const ClusterSpec& spec,
                                                             const AlgorithmParams& params,
                                                             Time now, ClusterLimits limits = {});
  // The same with `policy` in place of the one the spec names: a variant of the same policy
  // that tests compare it with (e.g. MakeGroupedPolicy without kept group timelines).
  static absl::StatusOr<std::unique_ptr<ClusterPlan>> CreateWithPolicy(
      const ClusterSpec& spec, const AlgorithmParams& params, Time now,
      std::unique_ptr<OnlinePolicy> policy, ClusterLimits limits = {});
  ClusterPlan(const ClusterPlan&) = delete;
  ClusterPlan& operator=(const ClusterPlan&) = delete;
  // A deep copy for what-if queries (dry runs).
  std::unique_ptr<ClusterPlan> Copy() const;
  // The plan as plain values, and back (cluster_plan_image.h). The image is taken between
  // calls: jobs changed since the last TakeChangedJobs are not part of it. FromImage answers
  // DATA_LOSS naming what does not fit (a job booked on a reservation the timeline does not
  // hold, an unknown job in the running list, ...).
  ClusterPlanImage Image() const;
  static absl::StatusOr<std::unique_ptr<ClusterPlan>> FromImage(ClusterPlanImage image);

  // What each change did, for a journal of outcomes (plan_change.h). From TrackChanges(true) on,
  // TakeChange returns what changed since the last TakeChange, or since tracking began: the
  // changes of calls that failed too, whose undo re-books jobs under new reservation ids. A copy
  // does not track. (cluster_plan_change.cc)
  void TrackChanges(bool on);
  PlanChange TakeChange();
  // The timeline ops TakeChange would return now (what failed calls' undos left, between
  // changes).
  std::size_t untaken_timeline_ops() const { return timeline_.logged_ops(); }
  // Applies what TakeChange returned on a plan that was in the same state before it, without
  // running the policy: DATA_LOSS naming what does not fit (an add that gets another id here, a
  // job or a reservation that is not there), after which the plan is partly changed and must be
  // dropped.
  absl::Status ApplyChange(PlanChange change);

  const ClusterSpec& spec() const { return spec_; }
  int capacity() const { return timeline_.capacity(); }
  Time now() const { return now_; }
  const Timeline& timeline() const { return timeline_; }
  const OnlinePolicy& policy() const { return *policy_; }
  // On processor groups of different speeds every job (JobRecord::group), DAG task
  // (DagTaskBooking::group) and replanned job runs inside one group, at that group's speed.
  // What each group has free from now on for a DAG's tasks (core/dag/group_free.h), for
  // DagPlanningInput::group_free; empty on one speed.
  std::vector<Timeline> FreeByGroup() const;
  // The same with every queued job's processors free (FreeForQueued per group), for a Replan
  // of each group's queue.
  std::vector<Timeline> FreeByGroupForQueued() const;

  // Validates and places a job with the policy; assigns its id ("j<n>").
  absl::StatusOr<const JobRecord*> Submit(Job job);
  absl::StatusOr<const JobRecord*> Cancel(const JobId& id);
  // A start at t (<= now): acknowledged for a job the plan has started (RUNNING);
  // FAILED_PRECONDITION for a QUEUED one, whose planned start is always after now.
  absl::StatusOr<const JobRecord*> ReportStarted(const JobId& id, Time t);
  // A finish or failure at t (<= now, >= start). Before the planned end it frees capacity.
  absl::StatusOr<const JobRecord*> ReportEnded(const JobId& id, Time t, bool failed);

  // Holds k processors over [max(start, now), end). With `displace_queued`, queued jobs in the
  // way are re-planned by the policy; otherwise the hold must fit in the free capacity. On
  // processor groups of different speeds, `group` (an index into spec().groups) holds that
  // group's processors: the jobs of the group and its other holds leave room for it; -1 takes
  // processors from any group. INVALID_ARGUMENT for a group that does not exist or on a
  // cluster of one speed.
  absl::StatusOr<const ExternalReservation*> AddReservation(int k, Time start, Time end,
                                                            std::string reason,
                                                            bool displace_queued, int group = -1);
  absl::Status RemoveReservation(const std::string& id);

  // Books every task of `plan` (computed on this plan's timeline) or none: FAILED_PRECONDITION
  // naming the task when one no longer fits. Tasks must not start before now. On groups of
  // different speeds every task names its group (TaskReservation::group) and must fit in what
  // FreeByGroup() gives it there; on one speed none may name one (INVALID_ARGUMENT).
  absl::StatusOr<const DagReservation*> CommitDag(const Dag& dag, const DagPlan& plan,
                                                  std::string algorithm, std::string label,
                                                  Time release, std::string owner = {});
  // Frees every task's booking; queued jobs may move earlier. NOT_FOUND for an unknown id.
  absl::Status ReleaseDag(const std::string& id);
  // What the engine running DAG reservation `id`'s task `task` reports, at `t` (not after now):
  // a start (not before the task's reserved start: FAILED_PRECONDITION), a finish or a failure
  // (in [its start, now]). An end frees the task's processors from `t` on, so queued jobs may
  // move earlier; a failure also releases the tasks that depend on it, directly or not, which
  // will never run. NOT_FOUND for an unknown reservation or task, FAILED_PRECONDITION for a
  // task that has ended or was released, INVALID_ARGUMENT for a time out of range.
  absl::StatusOr<const DagReservation*> ReportDagTask(const std::string& id,
                                                      const std::string& task, DagTaskEvent event,
                                                      Time t);
  const DagReservation* FindDag(const std::string& id) const;
  std::vector<const DagReservation*> Dags() const;

  // Aida & Casanova §4.2's q: the time-weighted average of processors not used by retained
  // jobs, external reservations and DAG tasks over [now - window, now), the part of it since the
  // cluster was created. A cluster with no past yet looks at its bookings over [now, now +
  // window) instead. In [1, P].
  int HistoricalAvailable(Duration window) const;
  // The share of the processor time from the first retained job's start to now that retained
  // jobs used, in [0, 1]; 0 before any job has started. O(running jobs).
  double PastUtilization() const;
  // An owner's queued and running jobs, and the processor time they hold from now on (the
  // remaining part of running ones), in processor-microseconds. O(running jobs).
  struct OwnerUsage {
    int active_jobs = 0;
    absl::int128 processor_micros_ahead = 0;
  };
  OwnerUsage UsageOf(const std::string& owner) const;

  // Replan (cluster_plan_replan.cc). Every queued job, the policy's and the replanned ones, in
  // submission order.
  std::vector<const JobRecord*> QueuedJobs() const;
  // The capacity queued jobs may use: the timeline without their bookings (running jobs,
  // external reservations and DAG tasks stay).
  Timeline FreeForQueued() const;
  // Places every listed job at its allocation, all of them or none, and marks them replanned:
  // from then on the policy plans around them and they keep their width and their order, moving
  // only earlier when capacity is freed (never later, unless a later Replan or a reservation
  // that displaces queued jobs moves them). Queued jobs not listed (submitted while the plan was
  // computed) are then placed by the policy, in submission order. FAILED_PRECONDITION naming the
  // job when a listed job is no longer queued or its allocation no longer fits; INVALID_ARGUMENT
  // when an allocation does not match the job (width, run time, start before now or release).
  absl::Status ApplyReplan(const std::vector<PlannedJob>& planned);

  // Moves the clock to t (>= now), ending and starting jobs at each event on the way; a
  // periodic Replan due on the way is made by `replanner`, by default the cluster's planner on
  // this plan (PlanningReplanner).
  absl::Status AdvanceTo(Time t, PeriodicReplanner* replanner = nullptr);
  // Whether AdvanceTo(t) may meet a periodic Replan: one falls due by t and jobs are queued now
  // (they may all start before it). False: it meets none.
  bool PeriodicReplanDueBy(Time t) const;

  const JobRecord* FindJob(const JobId& id) const;
  // Every retained job in submission order.
  std::vector<const JobRecord*> Jobs() const;
  std::vector<const ExternalReservation*> Reservations() const;
  int queued_count() const { return static_cast<int>(queue_.size() + replanned_.size()); }
  // Retained jobs, external holds and DAG reservations: the size of the plan's image.
  std::size_t retained_count() const { return jobs_.size() + reservations_.size() + dags_.size(); }
  int running_count() const { return static_cast<int>(running_.size()); }

  // Jobs whose state or allocation changed since the last call, in order of change, each once.
  std::vector<const JobRecord*> TakeChangedJobs();
  // The same, without forgetting them.
  std::vector<const JobRecord*> PeekChangedJobs() const {
    return {changed_.begin(), changed_.end()};
  }

  // The schedule as the validator sees it (retained jobs and current external holds).
  ScheduleToValidate ToValidate() const;

 private:
  ClusterPlan(const ClusterSpec& spec, std::unique_ptr<OnlinePolicy> policy, Time now,
              ClusterLimits limits);

  // On groups of different speeds a job runs inside one group: INVALID_ARGUMENT when none holds
  // any of its widths.
  absl::Status CheckFitsOneGroup(const Job& job) const;
  // INVALID_ARGUMENT unless `group` is -1 (any) or, on groups of different speeds, an index
  // into spec().groups whose count is at least k.
  absl::Status CheckHoldGroup(int group, int k) const;
  // The fewest processors of `group` free over [start, end): its count less its placed jobs, its
  // holds and its DAG tasks, and no more than the cluster has free.
  int GroupMinFree(int group, Time start, Time end) const;
  // Each group's own bookings over [from, to): its placed jobs (the queued ones as `queued`
  // says), the holds and the DAG tasks naming it.
  enum class QueuedJobsIn { kAll, kPolicyQueueOnly, kNone };
  std::vector<Timeline> OwnBookingsByGroup(Time from, Time to, QueuedJobsIn queued) const;
  // INVALID_ARGUMENT unless every task of `plan` names a group (holding its processors) exactly
  // when the cluster has groups of several speeds.
  absl::Status CheckTaskGroups(const Dag& dag, const DagPlan& plan) const;
  // A restored job's group must exist exactly on a cluster of several speeds; its model is put
  // back on that group's speed (a snapshot keeps the reference model). DATA_LOSS otherwise.
  absl::Status RestoreGroup(JobRecord& job, const std::string& what) const;
  JobRecord* Mutable(const JobId& id);
  PlanState MakeState();
  void AbsorbMoves(const PlanState& state);
  void MarkChanged(JobRecord* job);
  // The sums over the retained jobs, up to date between public calls (see AccountOnReturn).
  const JobLedger& Ledger() const { return ledger_; }
  // Brings the jobs marked changed since the last time into ledger_.
  void AccountChangedJobs();
  // Every public call that changes jobs holds one: the jobs it marked are accounted when it
  // returns, on every path, after the whole change, so the order of a change's steps and its
  // MarkChanged calls does not matter.
  class AccountOnReturn {
   public:
    explicit AccountOnReturn(ClusterPlan& plan) : plan_(plan) {}
    AccountOnReturn(const AccountOnReturn&) = delete;
    AccountOnReturn& operator=(const AccountOnReturn&) = delete;
    ~AccountOnReturn() { plan_.AccountChangedJobs(); }

   private:
    ClusterPlan& plan_;
  };
  void ProcessInstant();
  // Queued jobs whose allocation starts at or before now begin running.
  void Start(const std::vector<JobRecord*>& starting);
  void EndJob(JobRecord* job, JobState state, Time t);
  std::optional<Time> NextEventAfterNow() const;
  // A SIMULATED cluster with a periodic Replan (spec().replan): at its due instant, applies what
  // `replanner` plans for its queued jobs; then sets the next instant after now.
  void ReplanIfDue(PeriodicReplanner& replanner);
  void RemoveFromQueue(JobRecord* job);
  // Capacity was freed from `freed_from`: the replanned jobs move earlier where they can, then
  // the policy re-optimizes its own queue.
  void Reoptimize(Time freed_from);
  // Replanned jobs, in order, each at its earliest start no later than its current one and no
  // earlier than its predecessor's.
  void CompressReplanned(Time freed_from);
  // Back to the policy's queue (a reservation that displaces queued work rebuilds them all).
  void ReturnReplannedToPolicy();
  // Checks a Replan's allocations against the jobs before anything changes.
  absl::Status CheckPlanned(const std::vector<PlannedJob>& planned,
                            std::vector<JobRecord*>& jobs) const;
  void PruneEnded();
  // Takes a job out of the queue, the replanned queue and the running list, whichever hold it.
  void DropFromLists(JobRecord* job);
  // ApplyChange's parts.
  absl::Status ApplyJobChanges(PlanChange& change);
  absl::Status ApplyBookingChanges(PlanChange& change);
  void TouchJob(const JobRecord& job) {
    if (tracker_.on) tracker_.jobs.push_back(job.sequence);
  }
  // Frees the bookings of DAG tasks that have ended (the past needs none) and forgets the oldest
  // completed DAG reservations beyond the retention limit.
  void ExpireDags();

  ClusterSpec spec_;
  AlgorithmParams params_;
  std::unique_ptr<OnlinePolicy> policy_;
  ClusterLimits limits_;
  Timeline timeline_;
  // Facts from the policy's earlier searches on timeline_ (dropped by its next removal).
  StartBounds start_bounds_;
  Time now_;
  Time last_start_ = kTimeMin;
  std::int64_t next_job_ = 1;
  std::int64_t next_reservation_ = 1;
  std::int64_t next_dag_ = 1;
  Time created_;
  Time next_dag_expiry_ = kTimeMax;              // the earliest end of a DAG task still booked
  Time next_replan_ = kTimeMax;                  // the periodic Replan's next instant
  std::map<std::int64_t, DagReservation> dags_;  // by creation order
  std::deque<Allocation> past_holds_;  // expired external reservations, for the historical q
  std::map<std::int64_t, std::unique_ptr<JobRecord>> jobs_;  // by submission sequence
  absl::flat_hash_map<JobId, JobRecord*> by_id_;
  std::vector<JobRecord*> queue_;      // queued under the policy, submission order
  std::vector<JobRecord*> replanned_;  // queued, placed by a Replan: by planned start
  std::vector<JobRecord*> running_;    // started, not ended
  std::map<std::int64_t, ExternalReservation> reservations_;  // by creation order
  // The bookings of holds and DAG tasks that name a group, for the groups' policy
  // (PlanState::group_bookings).
  absl::flat_hash_map<ReservationId, int> group_bookings_;
  std::vector<JobRecord*> changed_;  // in order of change
  absl::flat_hash_set<JobRecord*> changed_set_;
  // Every retained job as it was when its last change was accounted (AccountOnReturn); the
  // jobs marked since wait in unaccounted_, which MarkChanged also brings in past
  // kMaxUnaccounted entries.
  JobLedger ledger_;
  std::vector<const JobRecord*> unaccounted_;
  static constexpr std::size_t kMaxUnaccounted = 4096;
  int ended_count_ = 0;

  // What changed since the last TakeChange, while tracking; ids at or after first_new_* were
  // created since.
  struct ChangeTracker {
    bool on = false;
    std::int64_t first_new_job = 1;
    std::int64_t first_new_reservation = 1;
    std::int64_t first_new_dag = 1;
    std::vector<std::int64_t> jobs;  // sequences of the jobs changed, repeats allowed
    std::vector<JobId> forgotten;
    std::vector<JobId> started;
    bool replanned_order = false;
    std::vector<std::int64_t> removed_reservations;
    std::vector<Allocation> added_past_holds;
    std::vector<std::int64_t> dags;  // changed, repeats allowed
    std::vector<std::int64_t> removed_dags;
    // The policy's image was not empty at the last TakeChange.
    bool policy_remembers = false;
  };
  ChangeTracker tracker_;
};

}  // namespace resched
