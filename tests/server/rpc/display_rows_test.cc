// The processor rows GetSchedule and WatchSchedule draw items on: one assignment, the same in
// both, that keeps every item on its rows while the item does not change, and puts a job on
// consecutive rows where they are free.
#include <gmock/gmock.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

using Rows = std::map<std::string, std::vector<int>>;

Rows JobRows(const pb::Schedule& schedule) {
  Rows rows;
  for (const pb::Job& job : schedule.jobs()) {
    rows[job.id()] = {job.allocation().processor_ids().begin(),
                      job.allocation().processor_ids().end()};
  }
  return rows;
}

class DisplayRowsTest : public ServerTest {
 protected:
  // The sequence of the cluster's last event: what a new stream's first schedule includes.
  std::int64_t LastSequence() {
    auto probe = Watch("sim");
    pb::ScheduleEvent first;
    EXPECT_TRUE(probe->reader->Read(&first));
    probe->context.TryCancel();
    (void)Drain(*probe);
    return first.sequence();
  }
};

TEST_F(DisplayRowsTest, AWideJobSitsOnConsecutiveRows) {
  CreateSim("sim", 64, "conservative");
  pb::SubmitJobResponse submitted;
  ASSERT_OK(Submit("sim", Rigid(5, 100), &submitted));
  ASSERT_OK(Submit("sim", Rigid(16, 100), &submitted));
  const pb::Schedule schedule = Schedule("sim");
  ExpectValid(schedule);
  const std::vector<int> ids = JobRows(schedule)[submitted.job().id()];
  ASSERT_EQ(ids.size(), 16u);
  for (std::size_t i = 1; i < ids.size(); ++i) EXPECT_EQ(ids[i], ids[i - 1] + 1);
}

// Random submissions and cancellations: after each, a job no event named keeps its rows, every
// event's rows are GetSchedule's, and the schedule stays valid with no row used twice at once.
TEST_F(DisplayRowsTest, RowsStayPutAndEventsCarryGetSchedulesRows) {
  CreateSim("sim", 32, "conservative");
  std::mt19937 rng(5);
  std::vector<std::string> ids;
  pb::SubmitJobResponse submitted;
  for (int i = 0; i < 30; ++i) {
    ASSERT_OK(Submit("sim", Rigid(1 + static_cast<int>(rng() % 12), 10 + rng() % 90), &submitted));
    ids.push_back(submitted.job().id());
  }
  auto stream = Watch("sim");
  pb::ScheduleEvent first;
  ASSERT_TRUE(stream->reader->Read(&first));
  ASSERT_EQ(first.kind(), pb::ScheduleEvent::SCHEDULE);
  Rows before = JobRows(Schedule("sim"));
  EXPECT_EQ(JobRows(first.schedule()), before);
  std::int64_t sequence = first.sequence();
  for (int step = 0; step < 40; ++step) {
    if (rng() % 3 == 0 && !ids.empty()) {
      const std::size_t pick = rng() % ids.size();
      ASSERT_OK(Cancel("sim", ids[pick]));
      ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(pick));
    } else {
      ASSERT_OK(
          Submit("sim", Rigid(1 + static_cast<int>(rng() % 12), 10 + rng() % 90), &submitted));
      ids.push_back(submitted.job().id());
    }
    const pb::Schedule schedule = Schedule("sim");
    ExpectValid(schedule);
    const Rows after = JobRows(schedule);
    // The change's events, to the last one published.
    const std::int64_t last = LastSequence();
    Rows named;
    Rows moved;
    while (sequence < last) {
      pb::ScheduleEvent event;
      ASSERT_TRUE(stream->reader->Read(&event));
      sequence = event.sequence();
      if (event.kind() == pb::ScheduleEvent::JOB_CHANGED) {
        named[event.job().id()] = {event.job().allocation().processor_ids().begin(),
                                   event.job().allocation().processor_ids().end()};
      }
      for (const pb::RowMove& move : event.moved_rows()) {
        ASSERT_FALSE(move.job_id().empty());
        moved[move.job_id()] = {move.processor_ids().begin(), move.processor_ids().end()};
      }
    }
    // A job no event named stays on its rows, or its move says where it went.
    for (const auto& [id, rows] : after) {
      if (named.contains(id) || !before.contains(id)) continue;
      EXPECT_EQ(rows, moved.contains(id) ? moved.at(id) : before.at(id))
          << id << " moved rows at step " << step;
    }
    for (const auto& [id, rows] : named) {
      if (!after.contains(id)) continue;
      EXPECT_EQ(rows, after.at(id)) << id;
    }
    before = after;
  }
  stream->context.TryCancel();
  (void)Drain(*stream);
}

}  // namespace
}  // namespace resched::server::testing
