#include "client/gantt.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "absl/strings/str_split.h"

namespace resched::cli {
namespace {

resched::v1::Schedule ScheduleText(const std::string& text) {
  resched::v1::Schedule s;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &s)) << text;
  return s;
}

// Two jobs on their ids, one job without ids (placed on the lowest free ids) and a
// reservation (placed on ids free over its whole interval).
const char* const kSmall = R"pb(
  cluster: "sim"
  capacity: 8
  now {}
  from {}
  to { seconds: 7200 }
  jobs {
    id: "j1"
    spec { name: "first" }
    state: RUNNING
    allocation {
      processors: 4
      start {}
      end { seconds: 3600 }
      processor_ids: [ 0, 1, 2, 3 ]
    }
  }
  jobs {
    id: "j2"
    state: QUEUED
    allocation {
      processors: 6
      start { seconds: 3600 }
      end { seconds: 5400 }
      processor_ids: [ 0, 1, 2, 3, 4, 5 ]
    }
  }
  jobs {
    id: "j3"
    state: QUEUED
    allocation {
      processors: 2
      start {}
      end { seconds: 1800 }
    }
  }
  reservations {
    id: "r1"
    processors: 2
    start { seconds: 5400 }
    end { seconds: 7200 }
    reason: "maintenance"
  }
)pb";

TEST(RenderGantt, SimulatedClock) {
  EXPECT_EQ(RenderGantt(ScheduleText(kSmall), {80, TimeStyle::kSimulated}),
            R"(sim: 8 processors, @0s .. @2h, 1 column = ~1m35s
0 |000000000000000000000000000000000000001111111111111111111###################|
1 |000000000000000000000000000000000000001111111111111111111###################|
2 |000000000000000000000000000000000000001111111111111111111...................|
3 |000000000000000000000000000000000000001111111111111111111...................|
4 |2222222222222222222...................1111111111111111111...................|
5 |2222222222222222222...................1111111111111111111...................|
6 |............................................................................|
7 |............................................................................|
  +---------+--------+---------+--------+---------+--------+---------+---------+
  @0s       @15m     @30m      @45m     @1h       @1h15m   @1h30m    @1h45m
legend ('.' idle):
   ID  STATE     K  START   END     NAME
0  j1  RUNNING   4  @0s     @1h     first
1  j2  QUEUED    6  @1h     @1h30m
2  j3  QUEUED    2  @0s     @30m
#  r1  RESERVED  2  @1h30m  @2h     maintenance
)");
}

TEST(RenderGantt, GroupsOfSeveralSpeedsLabelTheirRows) {
  const resched::v1::Schedule s = ScheduleText(R"pb(
    cluster: "mixed"
    capacity: 3
    now {}
    from {}
    to { seconds: 20 }
    groups { name: "fast" count: 1 speed: 2 }
    groups { count: 2 speed: 1 }
    jobs {
      id: "j1"
      state: RUNNING
      group: 0
      allocation {
        processors: 1
        start {}
        end { seconds: 10 }
        processor_ids: [ 0 ]
      }
    }
    jobs {
      id: "j2"
      state: QUEUED
      group: 1
      allocation {
        processors: 2
        start {}
        end { seconds: 20 }
        processor_ids: [ 1, 2 ]
      }
    }
  )pb");
  EXPECT_EQ(
      RenderGantt(s, {29, TimeStyle::kSimulated, false}),
      R"(mixed: 3 processors, @0s .. @20s, groups fast = 0-0 at speed 2, #1 = 1-2 at speed 1, 1 column = 1s
fast 0 |0000000000..........|
  #1 1 |11111111111111111111|
  #1 2 |11111111111111111111|
       +----+----+----+-----+
       @0s  @5s  @10s @15s
)");
}

TEST(RenderGantt, WallClockAndNarrowWidth) {
  resched::v1::Schedule s = ScheduleText(R"pb(
    cluster: "prod"
    capacity: 4
    from { seconds: 1795341600 }
    to { seconds: 1795345200 }
    jobs {
      id: "a"
      state: QUEUED
      allocation {
        processors: 3
        start { seconds: 1795341600 }
        end { seconds: 1795343400 }
        processor_ids: [ 0, 1, 2 ]
      }
    }
    jobs {
      id: "b"
      state: QUEUED
      allocation {
        processors: 4
        start { seconds: 1795343400 }
        end { seconds: 1795347000 }
        processor_ids: [ 0, 1, 2, 3 ]
      }
    }
  )pb");
  EXPECT_EQ(RenderGantt(s, {40, TimeStyle::kWall}),
            R"(prod: 4 processors, 2026-11-22T10:00:00Z .. 2026-11-22T11:00:00Z, 1 column = 1m40s
0 |000000000000000000111111111111111111|
1 |000000000000000000111111111111111111|
2 |000000000000000000111111111111111111|
3 |..................111111111111111111|
  +-----+-----+-----+-----+-----+------+
  10:00 10:10 10:20 10:30 10:40 10:50
legend ('.' idle):
   ID  STATE   K  START                 END                   NAME
0  a   QUEUED  3  2026-11-22T10:00:00Z  2026-11-22T10:30:00Z
1  b   QUEUED  4  2026-11-22T10:30:00Z  2026-11-22T11:30:00Z
)");
}

TEST(RenderGantt, WhatCannotBePlacedGoesToTheOtherRow) {
  // Processors 0-3 are each busy over half of the window: no two processors are free over
  // the whole reservation, though two are free at every instant.
  resched::v1::Schedule s = ScheduleText(R"pb(
    cluster: "frag"
    capacity: 4
    from {}
    to { seconds: 40 }
    jobs {
      id: "x"
      allocation {
        processors: 2
        start {}
        end { seconds: 20 }
        processor_ids: [ 0, 2 ]
      }
    }
    jobs {
      id: "y"
      allocation {
        processors: 2
        start { seconds: 20 }
        end { seconds: 40 }
        processor_ids: [ 1, 3 ]
      }
    }
    reservations {
      id: "r"
      processors: 2
      start { seconds: 10 }
      end { seconds: 30 }
    }
  )pb");
  EXPECT_EQ(RenderGantt(s, {40, TimeStyle::kSimulated}),
            R"(frag: 4 processors, @0s .. @40s, 1 column = 1.25s
    0 |0000000000000000................|
    1 |................1111111111111111|
    2 |0000000000000000................|
    3 |................1111111111111111|
other |........################........|
      +-------+-------+-------+--------+
      @0s     @10s    @20s    @30s
legend ('.' idle):
   ID  STATE                  K  START  END   NAME
0  x   JOB_STATE_UNSPECIFIED  2  @0s    @20s
1  y   JOB_STATE_UNSPECIFIED  2  @20s   @40s
#  r   RESERVED               2  @10s   @30s
)");
}

TEST(RenderGantt, BandsOfProcessorsShowTheDominantJob) {
  // 130 processors: bands of 3, 44 rows. Job a holds 0-99 for 5 minutes, b 100-129.
  resched::v1::Schedule s;
  s.set_cluster("big");
  s.set_capacity(130);
  s.mutable_to()->set_seconds(600);
  s.mutable_from();
  auto add = [&](const std::string& id, int lo, int hi, int64_t end) {
    auto* job = s.add_jobs();
    job->set_id(id);
    auto* a = job->mutable_allocation();
    a->set_processors(hi - lo + 1);
    a->mutable_start();
    a->mutable_end()->set_seconds(end);
    for (int p = lo; p <= hi; ++p) a->add_processor_ids(p);
  };
  add("a", 0, 99, 300);
  add("b", 100, 129, 600);
  std::string out = RenderGantt(s, {40, TimeStyle::kSimulated});
  std::vector<std::string> lines = absl::StrSplit(out, '\n');
  ASSERT_GT(lines.size(), 47u) << out;
  EXPECT_EQ(lines[0], "big: 130 processors, @0s .. @10m, 1 column = 20s, 1 row = 3 processors");
  EXPECT_EQ(lines[1], "    0-2 |000000000000000...............|");
  // Band 99-101: one processor of a for half the window, two of b for all of it.
  EXPECT_EQ(lines[34], " 99-101 |111111111111111111111111111111|");
  EXPECT_EQ(lines[44], "    129 |111111111111111111111111111111|");
  EXPECT_EQ(lines[45], "        +-----+-----+-----+-----+------+");
  EXPECT_EQ(lines[46], "        @0s   @2m   @4m   @6m   @8m");
}

TEST(RenderGantt, DefaultsAndEmptyWindows) {
  resched::v1::Schedule s = ScheduleText(R"pb(cluster: "e"
                                              capacity: 4
                                              now { seconds: 60 })pb");
  EXPECT_EQ(RenderGantt(s, {80, TimeStyle::kSimulated}),
            "e: 4 processors, @1m .. @1m1s\n(nothing scheduled in this window)\n");
  // Without `to`, the window ends with the last allocation.
  s = ScheduleText(R"pb(cluster: "e"
                        capacity: 2
                        now { seconds: 0 }
                        jobs {
                          id: "a"
                          allocation {
                            processors: 1
                            start {}
                            end { seconds: 30 }
                            processor_ids: [ 1 ]
                          }
                        })pb");
  std::string out = RenderGantt(s, {30, TimeStyle::kSimulated});
  EXPECT_EQ(out.substr(0, out.find('\n')), "e: 2 processors, @0s .. @30s, 1 column = ~1.15s");
  EXPECT_NE(out.find("1 |00000000000000000000000000|"), std::string::npos) << out;
}

TEST(JobChar, Cycles) {
  EXPECT_EQ(JobChar(0), '0');
  EXPECT_EQ(JobChar(10), 'a');
  EXPECT_EQ(JobChar(36), 'A');
  EXPECT_EQ(JobChar(61), 'Z');
  EXPECT_EQ(JobChar(62), '0');
}

}  // namespace
}  // namespace resched::cli
