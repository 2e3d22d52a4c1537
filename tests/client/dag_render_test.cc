#include "client/dag_render.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "client/render.h"
#include "tests/testing/text_proto.h"

namespace resched::cli {
namespace {

using resched::testing::Text;

namespace v1 = resched::v1;

// A diamond on 4 processors: prep, then left (2) beside right (1), then merge (4).
Placements Diamond() {
  return Text<v1::ReserveDAGResponse>(R"pb(
           placements {
             task: "prep"
             allocation {
               processors: 4
               start { seconds: 600 }
               end { seconds: 1200 }
             }
           }
           placements {
             task: "left"
             allocation {
               processors: 2
               start { seconds: 1200 }
               end { seconds: 3000 }
             }
           }
           placements {
             task: "right"
             allocation {
               processors: 1
               start { seconds: 1200 }
               end { seconds: 2400 }
             }
           }
           placements {
             task: "merge"
             allocation {
               processors: 4
               start { seconds: 3000 }
               end { seconds: 3600 }
             }
           })pb")
      .placements();
}

TEST(PlanSchedule, HoldsTheTasksOverTheirSpan) {
  v1::Schedule s = PlanSchedule("sim", 4, "d1", Diamond());
  EXPECT_EQ(s.cluster(), "sim");
  EXPECT_EQ(s.capacity(), 4);
  EXPECT_EQ(s.from().seconds(), 600);
  EXPECT_EQ(s.to().seconds(), 3600);
  ASSERT_EQ(s.dag_tasks_size(), 4);
  EXPECT_EQ(s.dag_tasks(2).dag_id(), "d1");
  EXPECT_EQ(s.dag_tasks(2).task(), "right");
  EXPECT_EQ(s.jobs_size(), 0);
}

TEST(RenderDagPlan, TableThenChartLabelledByTheTableGlyphs) {
  EXPECT_EQ(RenderDagPlan("sim", 4, "d1", Diamond(), {40, TimeStyle::kSimulated}),
            R"(   TASK   K  START  END   DURATION
0  prep   4  @10m   @20m       10m
1  left   2  @20m   @50m       30m
2  right  1  @20m   @40m       20m
3  merge  4  @50m   @1h        10m

sim: 4 processors, @10m .. @1h, 1 column = ~1m23s
0 |000000011111111111111111111113333333|
1 |000000011111111111111111111113333333|
2 |0000000222222222222222......33333333|
3 |00000000....................33333333|
  +------+------+-------+------+-------+
  @10m   @20m   @30m    @40m   @50m
)");
}

TEST(RenderDagPlan, WithoutCapacityTheChartInfersIt) {
  std::string out = RenderDagPlan("sim", 0, "", Diamond(), {40, TimeStyle::kSimulated});
  EXPECT_NE(out.find("sim: 4 processors, @10m .. @1h"), std::string::npos) << out;
}

TEST(RenderGantt, DagTasksBesideJobsAndReservations) {
  v1::Schedule s = Text<v1::Schedule>(R"pb(
    cluster: "sim"
    capacity: 4
    from {}
    to { seconds: 40 }
    jobs {
      id: "j1"
      spec { name: "solo" }
      state: RUNNING
      allocation {
        processors: 2
        start {}
        end { seconds: 20 }
        processor_ids: [ 0, 1 ]
      }
    }
    reservations {
      id: "r1"
      processors: 1
      start { seconds: 20 }
      end { seconds: 40 }
    }
    dag_tasks {
      dag_id: "d1"
      task: "prep"
      allocation {
        processors: 2
        start {}
        end { seconds: 10 }
        processor_ids: [ 2, 3 ]
      }
    }
    dag_tasks {
      dag_id: "d1"
      task: "merge"
      allocation {
        processors: 2
        start { seconds: 10 }
        end { seconds: 30 }
      }
    }
  )pb");
  // Job 0 keeps '0'; the DAG tasks continue the sequence ('1', '2'); merge has no ids and
  // takes the lowest ids free over its interval (2-3), the reservation then takes 0.
  EXPECT_EQ(RenderGantt(s, {40, TimeStyle::kSimulated}),
            R"(sim: 4 processors, @0s .. @40s, 1 column = ~1.11s
0 |000000000000000000##################|
1 |000000000000000000..................|
2 |111111111222222222222222222.........|
3 |111111111222222222222222222.........|
  +--------+--------+--------+---------+
  @0s      @10s     @20s     @30s
legend ('.' idle):
   ID  STATE     K  START  END   NAME
0  j1  RUNNING   2  @0s    @20s  solo
#  r1  RESERVED  1  @20s   @40s
1  d1  DAG       2  @0s    @10s  prep
2  d1  DAG       2  @10s   @30s  merge
)");
  EXPECT_EQ(DagTaskChar(s, 1), '2');
}

TEST(RenderDagList, OneRowPerReservation) {
  v1::ListDagReservationsResponse r = Text<v1::ListDagReservationsResponse>(R"pb(
    dags {
      id: "d1"
      algorithm: "bl_cpar_bd_cpar"
      release {}
      completion { seconds: 3600 }
      cpu_hours: 2.5
      label: "nightly"
      placements { task: "a" }
      placements { task: "b" }
    }
    dags {
      id: "d2"
      algorithm: "dl_rc_cpar"
      release { seconds: 60 }
      completion { seconds: 120 }
      cpu_hours: 0.125
      placements { task: "a" }
    })pb");
  EXPECT_EQ(RenderDagList(Pointers(r.dags()), TimeStyle::kSimulated),
            "ID  LABEL    ALGORITHM        TASKS  RELEASE  COMPLETION  CPU-HOURS\n"
            "d1  nightly  bl_cpar_bd_cpar      2  @0s      @1h              2.50\n"
            "d2  -        dl_rc_cpar           1  @1m      @2m              0.12\n");
}

TEST(RenderDagTaskTable, ShowsTheProcessorIds) {
  v1::Schedule s = Text<v1::Schedule>(R"pb(
    dag_tasks {
      dag_id: "d1"
      task: "prep"
      allocation {
        processors: 3
        start {}
        end { seconds: 90 }
        processor_ids: [ 0, 1, 5 ]
      }
    })pb");
  EXPECT_EQ(RenderDagTaskTable(Pointers(s.dag_tasks()), TimeStyle::kSimulated),
            "DAG  TASK  K  START  END     PROCESSORS\n"
            "d1   prep  3  @0s    @1m30s  0-1,5\n");
}

TEST(RenderDagTaskTable, NamesEachTasksGroupOnSeveralSpeeds) {
  v1::Schedule s = Text<v1::Schedule>(R"pb(
    dag_tasks {
      dag_id: "d1"
      task: "prep"
      group: 1
      allocation {
        processors: 2
        start {}
        end { seconds: 90 }
        processor_ids: [ 4, 5 ]
      }
    }
    dag_tasks {
      dag_id: "d1"
      task: "post"
      group: 0
      allocation {
        processors: 1
        start { seconds: 90 }
        end { seconds: 120 }
        processor_ids: [ 0 ]
      }
    })pb");
  EXPECT_EQ(RenderDagTaskTable(Pointers(s.dag_tasks()), TimeStyle::kSimulated, {"fast", "slow"}),
            "DAG  TASK  GROUP  K  START   END     PROCESSORS\n"
            "d1   prep  slow   2  @0s     @1m30s  4-5\n"
            "d1   post  fast   1  @1m30s  @2m     0\n");
}

TEST(RenderPlacementTable, ShowsTheGroupOfEachTaskOnSeveralSpeeds) {
  auto placements = Diamond();
  for (int i = 0; i < placements.size(); ++i) placements[i].set_group(i % 2);
  EXPECT_EQ(RenderPlacementTable(placements, TimeStyle::kSimulated),
            "   TASK   GROUP  K  START  END   DURATION\n"
            "0  prep   #0     4  @10m   @20m       10m\n"
            "1  left   #1     2  @20m   @50m       30m\n"
            "2  right  #0     1  @20m   @40m       20m\n"
            "3  merge  #1     4  @50m   @1h        10m\n");
}

}  // namespace
}  // namespace resched::cli
