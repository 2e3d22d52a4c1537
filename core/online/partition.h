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
// remembered here by reservation id. A plan cloned for a dry run keeps that knowledge: the
// policy's Clone copies the partition, and the timeline snapshot keeps the reservation ids.
// Bookings no part made (external holds, DAG tasks) count against the shared term only.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/online/plan_state.h"
#include "core/online/policy.h"
#include "core/online/policy_image.h"
#include "core/timeline/timeline.h"

namespace resched {

class Partition {
 public:
  explicit Partition(std::vector<int> capacities);

  int parts() const { return static_cast<int>(capacities_.size()); }
  int capacity(int part) const { return capacities_[part]; }

  // Learns which bookings started, ended or vanished since the last call, and adopts queued and
  // running jobs booked by someone else (a plan putting its queue back after a refused
  // reservation) into the part `part_of` names. The state's group bookings (holds naming a
  // part) and group jobs (placed by a Replan) count in their part. Call first in every entry
  // point of the policy.
  void Sync(PlanState& state, const std::function<int(const JobRecord&)>& part_of);

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

  // What Sync has learned (the running lists are rebuilt by every Sync), for a PolicyImage.
  void SaveTo(PolicyImage& image) const;
  absl::Status LoadFrom(const PolicyImage& image);

 private:
  struct Booking {
    int part = 0;
    Time start = 0;
  };

  std::vector<int> capacities_;
  std::map<ReservationId, Booking> bookings_;     // every live booking made through Commit
  std::vector<std::vector<Allocation>> running_;  // per part, from Sync
  std::vector<Time> last_start_;                  // per part, latest start seen
};

}  // namespace resched
