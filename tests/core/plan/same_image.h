// Two plans' images compared field by field (snapshots and journal replays must restore every
// one of them, reservation ids included).
#pragma once

#include <algorithm>

#include "core/plan/cluster_plan_image.h"
#include "gtest/gtest.h"

namespace resched::testing {

inline void ExpectSameAllocation(const Allocation& a, const Allocation& b) {
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.end, b.end);
}

inline void ExpectSameImage(const ClusterPlanImage& a, const ClusterPlanImage& b) {
  EXPECT_EQ(a.now, b.now);
  EXPECT_EQ(a.created, b.created);
  EXPECT_EQ(a.last_start, b.last_start);
  EXPECT_EQ(a.next_dag_expiry, b.next_dag_expiry);
  EXPECT_EQ(a.next_job, b.next_job);
  EXPECT_EQ(a.next_reservation, b.next_reservation);
  EXPECT_EQ(a.next_dag, b.next_dag);
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    const JobRecord& x = a.jobs[i];
    const JobRecord& y = b.jobs[i];
    SCOPED_TRACE(x.job.id);
    EXPECT_EQ(x.job.id, y.job.id);
    EXPECT_EQ(x.state, y.state);
    ExpectSameAllocation(x.allocation, y.allocation);
    EXPECT_EQ(x.placed, y.placed);
    EXPECT_EQ(x.reservation, y.reservation);
    EXPECT_EQ(x.guaranteed, y.guaranteed);
    EXPECT_EQ(x.replanned, y.replanned);
    EXPECT_EQ(x.ended_early, y.ended_early);
    EXPECT_EQ(x.submitted, y.submitted);
    EXPECT_EQ(x.sequence, y.sequence);
    EXPECT_EQ(x.group, y.group);
    EXPECT_EQ(x.job.release, y.job.release);
    EXPECT_EQ(x.job.model.speed(), y.job.model.speed());
  }
  EXPECT_EQ(a.running, b.running);
  ASSERT_EQ(a.reservations.size(), b.reservations.size());
  for (std::size_t i = 0; i < a.reservations.size(); ++i) {
    const ExternalReservation& x = a.reservations[i].second;
    const ExternalReservation& y = b.reservations[i].second;
    EXPECT_EQ(a.reservations[i].first, b.reservations[i].first);
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.booking, y.booking);
    EXPECT_EQ(x.group, y.group);
    ExpectSameAllocation({x.k, x.start, x.end}, {y.k, y.start, y.end});
  }
  ASSERT_EQ(a.dags.size(), b.dags.size());
  for (std::size_t i = 0; i < a.dags.size(); ++i) {
    EXPECT_EQ(a.dags[i].first, b.dags[i].first);
    EXPECT_EQ(a.dags[i].second.id, b.dags[i].second.id);
    ASSERT_EQ(a.dags[i].second.tasks.size(), b.dags[i].second.tasks.size());
    for (std::size_t t = 0; t < a.dags[i].second.tasks.size(); ++t) {
      EXPECT_EQ(a.dags[i].second.tasks[t].booking, b.dags[i].second.tasks[t].booking);
      EXPECT_EQ(a.dags[i].second.tasks[t].group, b.dags[i].second.tasks[t].group);
      ExpectSameAllocation(a.dags[i].second.tasks[t].allocation,
                           b.dags[i].second.tasks[t].allocation);
    }
  }
  ASSERT_EQ(a.past_holds.size(), b.past_holds.size());
  for (std::size_t i = 0; i < a.past_holds.size(); ++i) {
    ExpectSameAllocation(a.past_holds[i], b.past_holds[i]);
  }
  EXPECT_EQ(a.next_replan, b.next_replan);
  ASSERT_EQ(a.timeline.slots.size(), b.timeline.slots.size());
  for (std::size_t i = 0; i < a.timeline.slots.size(); ++i) {
    EXPECT_EQ(a.timeline.slots[i].generation, b.timeline.slots[i].generation);
    EXPECT_EQ(a.timeline.slots[i].live, b.timeline.slots[i].live);
    if (a.timeline.slots[i].live) {
      ExpectSameAllocation(a.timeline.slots[i].reservation, b.timeline.slots[i].reservation);
    }
  }
  EXPECT_EQ(a.timeline.free_slots, b.timeline.free_slots);
  EXPECT_EQ(a.policy.tables, b.policy.tables);
}

}  // namespace resched::testing
