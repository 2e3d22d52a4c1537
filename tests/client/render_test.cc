// The CLI's tables: the job table shows a GROUP column only on clusters of several speeds.
#include "client/render.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

namespace resched::cli {
namespace {

resched::v1::Schedule ParseSchedule(const std::string& text) {
  resched::v1::Schedule s;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &s)) << text;
  return s;
}

TEST(RenderJobTable, ShowsEachJobsGroupByNameOnGroupsOfSeveralSpeeds) {
  const resched::v1::Schedule s = ParseSchedule(R"pb(
    groups { name: "fast" count: 2 speed: 2 }
    groups { count: 4 speed: 1 }
    jobs {
      id: "j1"
      state: RUNNING
      group: 0
      allocation {
        processors: 2
        start {}
        end { seconds: 5 }
      }
    }
    jobs {
      id: "j2"
      state: QUEUED
      group: 1
      allocation {
        processors: 4
        start {}
        end { seconds: 10 }
      }
    }
  )pb");
  std::vector<const resched::v1::Job*> jobs = {&s.jobs(0), &s.jobs(1)};
  EXPECT_EQ(RenderJobTable(jobs, TimeStyle::kSimulated, false, GroupNames(s)),
            "ID  NAME  STATE    GROUP  K  START  END\n"
            "j1        RUNNING  fast   2  @0s    @5s\n"
            "j2        QUEUED   #1     4  @0s    @10s\n");
  // Without the names (a job listing): the index.
  EXPECT_EQ(RenderJobTable({&s.jobs(0)}, TimeStyle::kSimulated),
            "ID  NAME  STATE    GROUP  K  START  END\n"
            "j1        RUNNING  #0     2  @0s    @5s\n");
}

TEST(RenderJobTable, HasNoGroupColumnOnOneSpeed) {
  resched::v1::Job job;
  job.set_id("j1");
  job.set_state(resched::v1::QUEUED);
  EXPECT_EQ(RenderJobTable({&job}, TimeStyle::kSimulated).substr(0, 27),
            "ID  NAME  STATE   K  START ");
}

TEST(RenderReservationTable, ShowsTheGroupWhenOneIsNamed) {
  resched::v1::Reservation any, fast;
  any.set_id("r1");
  any.set_processors(1);
  fast.set_id("r2");
  fast.set_processors(2);
  fast.set_group(0);
  EXPECT_EQ(RenderReservationTable({&any, &fast}, TimeStyle::kSimulated),
            "ID  GROUP  K  START  END  REASON\n"
            "r1  any    1  -      -\n"
            "r2  #0     2  -      -\n");
  // With the schedule's group names, as `schedule show` prints it.
  EXPECT_EQ(RenderReservationTable({&any, &fast}, TimeStyle::kSimulated, {"fast", "slow"}),
            "ID  GROUP  K  START  END  REASON\n"
            "r1  any    1  -      -\n"
            "r2  fast   2  -      -\n");
}

}  // namespace
}  // namespace resched::cli
