// Runs online policies on parts of one cluster, as Split (Saule et al. §3.3.2, Alg. 1) and the
// main/auxiliary reservation scheme (§4) require, on the count-based timeline that all jobs
// share.
//
// A part is a cap: its jobs never use more than its capacity at any instant. The shared
// timeline keeps every booking (external holds, running and queued jobs of every part), so
// whatever the parts decide, the cluster's capacity holds. To plan part j, its queued jobs are
// taken off a copy of the shared timeline and the part gets a private timeline of its own
// capacity whose free(t) = min(capacity - running jobs of j at t, shared free at t); its policy
// plans there and the result is booked back on the shared timeline. Without external holds or
// DAG tasks, parts whose capacities sum to the cluster's are then exactly independent clusters
// (the shared term never binds). A hold belongs to no part: the shared term binds only where
// the other parts' bookings leave too little room, so a hold costs the part that books last.
//
// The policy sees running jobs only as bookings, so the part of each booking it made is
// remembered here by reservation id. A plan copied for a dry run keeps that knowledge: the
// policy's Copy copies the partition, and the timeline snapshot keeps the reservation ids.
// Bookings no part made (external holds, DAG tasks) count against the shared term only.
//
// The partition also keeps each part's bookings on a view of its own between calls
// (part_views.h), so that a new job can be placed in a part without building its private
// timeline (CatchUpForNewJob, PlacementOn, CommitNew).
//
// On a cluster of processor groups of different speeds, each group is cut into parts of its
// own: a part then also lies inside its group, and its private timeline is capped by the
// group's private timeline (the group's count less every booking in the group, holds naming it
// included, capped by the shared free) instead of by the shared one. The views then include one
// per group, and an answer read on a part's view is checked against its group's view too.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/online/part_views.h"
#include "core/online/plan_state.h"
#include "core/online/policy.h"
#include "core/online/policy_image.h"
#include "core/timeline/timeline.h"

namespace resched {

class Partition {
 public:
  explicit Partition(std::vector<int> capacities);
  // Parts inside processor groups: part p lies in group group_of_part[p], of
  // group_capacities[group] processors; holds naming a group count in the group, not a part.
  Partition(std::vector<int> capacities, std::vector<int> group_of_part,
            std::vector<int> group_capacities);

  int parts() const { return static_cast<int>(capacities_.size()); }
  int capacity(int part) const { return capacities_[part]; }

  // Learns which bookings started, ended or vanished since the last call, and adopts queued and
  // running jobs booked by someone else (a plan putting its queue back after a refused
  // reservation) into the part `part_of` names. The state's group bookings (holds naming a
  // part) and group jobs (placed by a Replan) count in their part. Call first in every entry
  // point of the policy.
  void Sync(PlanState& state, const std::function<int(const JobRecord&)>& part_of);
  // Sync's effect on what a new job's placement reads, from the shared timeline's recorded
  // changes alone: O(changes) instead of O(bookings). False when that is not enough (no views,
  // a booking someone else made, a record not followed); call Sync then.
  bool CatchUpForNewJob(PlanState& state, const std::function<int(const JobRecord&)>& part_of);
  // True when PlacementOn may read the parts' views (PartViews::Usable), until the next change
  // made elsewhere.
  bool ViewsUsable(const PlanState& state) const;
  // Where `policy` (the part's, with PlacesNewJobAlone()) would place `job` in `part`: its
  // answer on the part's view, with the bounds earlier searches there learned, when the shared
  // timeline (and the group's view) has room for it; for a job of one width, searched again
  // from where they have room, up to kPlacementRounds times. nullopt otherwise (plan the part
  // in full then). Changes nothing but the view's learned bounds.
  std::optional<NewPlacement> PlacementOn(PlanState& state, int part, JobRecord& job,
                                          OnlinePolicy& policy);
  // Books `job` in `part` at `placement`, as Commit would book a trial holding it alone.
  void CommitNew(PlanState& state, int part, JobRecord& job, const NewPlacement& placement);

  // What a part's policy would do with its queued jobs (`jobs`, submission order), computed on
  // the part's private timeline; nothing shared changes until Commit.
  struct Trial {
    int part = 0;
    std::vector<JobRecord*> jobs;
    std::vector<std::optional<Allocation>> allocations;  // per job; nullopt: left unplaced
    std::vector<bool> guaranteed;
  };
  // `decide` calls the part's policy on the sub-state (its timeline and queue); jobs placed on
  // the shared timeline on entry are placed on the part's timeline at the same allocation.
  // A job the policy leaves unplaced gets its earliest completion, on the part's timeline if a
  // width fits there, else (in Commit) on what the cluster has free; neither is a guarantee.
  Trial Try(PlanState& state, int part, std::vector<JobRecord*> jobs,
            const std::function<void(PlanState&)>& decide) const;
  // Books a trial on the shared timeline, replacing its jobs' previous bookings.
  void Commit(PlanState& state, const Trial& trial);

  // What Sync has learned (the running lists are rebuilt by every Sync), as the PolicyImage
  // tables kLastStartTable (a row per part: its latest start) and kBookingsTable (a row per
  // booking: its id, its part and its start).
  static constexpr char kLastStartTable[] = "partition.last_start";
  static constexpr char kBookingsTable[] = "partition.bookings";
  void SaveTo(PolicyImage& image) const;
  absl::Status LoadFrom(const PolicyImage& image);

 private:
  static constexpr int kPlacementRounds = 8;

  struct Booking {
    int part = 0;
    Time start = 0;
  };

  // The owner of a booking added on the shared timeline, from what the partition and the state
  // know (a hold naming a group, inside groups: the group's view, PartViews); `replanned` maps the
  // bookings of the state's group jobs to their parts (full Sync only; without it, an unknown
  // booking is kUnknown rather than of no part).
  PartViews::Owner OwnerOf(const PlanState& state, ReservationId id,
                           const absl::flat_hash_map<ReservationId, int>* replanned) const;
  // A released job booking: forgotten, and counted as a start when it started.
  void Released(const PlanState& state, ReservationId id, const Allocation& booking);
  // Brings the views up to the shared timeline after a full Sync, rebuilding them when the
  // record was not followed.
  void SyncViews(PlanState& state, const std::function<int(const JobRecord&)>& part_of);
  // Mirrors the partition's own bookings just made, so that the record stays short.
  void CatchUpOwnChanges(PlanState& state);
  // PartViews::CatchUp with the owners OwnerOf gives (`replanned` as there) and Released on
  // every release; views_ must exist.
  bool CatchUpViews(PlanState& state, const absl::flat_hash_map<ReservationId, int>* replanned);

  bool grouped() const { return !group_of_part_.empty(); }
  // The view a hold naming a part (a group, inside groups) is mirrored on; nullopt for a booking
  // that is no such hold.
  std::optional<int> HoldView(const PlanState& state, ReservationId id) const;
  // The private timeline of group `group` on `shared`, without the bookings in `excluded` (a
  // trial's jobs, already released from `shared`).
  Timeline GroupTimeline(const PlanState& state, const Timeline& shared, int group,
                         const absl::flat_hash_set<ReservationId>& excluded) const;

  std::vector<int> capacities_;
  std::vector<int> group_of_part_;                    // empty on one pool
  std::vector<int> group_capacities_;                 // per group
  std::vector<std::vector<Allocation>> group_holds_;  // per group, from Sync
  std::map<ReservationId, Booking> bookings_;         // every live booking made through Commit
  std::vector<std::vector<Allocation>> running_;      // per part, from Sync
  std::vector<Time> last_start_;                      // per part, latest start seen
  std::optional<PartViews> views_;                    // built at the first Sync
};

}  // namespace resched
