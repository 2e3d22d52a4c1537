#include "core/metrics/validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/status.h"

namespace resched {
namespace {

class ValidateTest : public ::testing::Test {
 protected:
  ScheduledItem Item(const std::string& id, int k, Time start, Time end) {
    ScheduledItem item;
    item.id = id;
    item.allocation = {k, start, end};
    return item;
  }
  static ScheduleToValidate Make(std::vector<ScheduledItem> items) {
    ScheduleToValidate s;
    s.capacity = 8;
    s.items = std::move(items);
    return s;
  }
  std::vector<ViolationKind> Kinds(const ScheduleToValidate& s) {
    std::vector<ViolationKind> kinds;
    for (const auto& v : FindViolations(s)) kinds.push_back(v.kind);
    return kinds;
  }
  RuntimeModel rigid4_10_{RigidModel{4, 10}};
};

TEST_F(ValidateTest, AcceptsAValidSchedule) {
  ScheduleToValidate s = Make({Item("a", 4, 0, 10), Item("b", 4, 0, 10), Item("c", 8, 10, 20)});
  s.items[0].model = &rigid4_10_;
  EXPECT_TRUE(FindViolations(s).empty());
  EXPECT_OK(ValidateSchedule(s));
}

TEST_F(ValidateTest, CatchesCapacity) {
  ScheduleToValidate s = Make({Item("a", 5, 0, 10), Item("b", 4, 9, 20)});
  EXPECT_EQ(Kinds(s), std::vector<ViolationKind>{ViolationKind::kCapacity});
  EXPECT_NE(ValidateSchedule(s).message().find("9 processors busy at 9"), std::string::npos);
}

TEST_F(ValidateTest, CapacityCountsExternalHolds) {
  ScheduleToValidate s = Make({Item("a", 5, 0, 10)});
  s.holds.push_back({4, 5, 15});
  EXPECT_EQ(Kinds(s), std::vector<ViolationKind>{ViolationKind::kCapacity});
  s.holds[0].start = 10;  // touching, not overlapping
  EXPECT_TRUE(FindViolations(s).empty());
}

TEST_F(ValidateTest, CatchesPrecedence) {
  ScheduleToValidate s = Make({Item("a", 1, 0, 10), Item("b", 1, 12, 20)});
  s.precedences.push_back({0, 1, 5});  // b may start at 15 at the earliest
  EXPECT_EQ(Kinds(s), std::vector<ViolationKind>{ViolationKind::kPrecedence});
  s.precedences[0].delay = 2;
  EXPECT_TRUE(FindViolations(s).empty());
}

TEST_F(ValidateTest, CatchesRelease) {
  ScheduleToValidate s = Make({Item("a", 1, 0, 10)});
  s.items[0].release = 1;
  EXPECT_EQ(Kinds(s), std::vector<ViolationKind>{ViolationKind::kRelease});
}

TEST_F(ValidateTest, CatchesDurationAndWidth) {
  ScheduleToValidate s = Make({Item("a", 4, 0, 11)});
  s.items[0].model = &rigid4_10_;
  EXPECT_EQ(Kinds(s), std::vector<ViolationKind>{ViolationKind::kDuration});
  s.items[0].allocation = {2, 0, 10};  // width the rigid model does not allow
  EXPECT_EQ(Kinds(s), std::vector<ViolationKind>{ViolationKind::kDuration});
  s.items[0].allocation = {4, 0, 7};  // shorter is fine only when it really ended early
  EXPECT_EQ(Kinds(s), std::vector<ViolationKind>{ViolationKind::kDuration});
  s.items[0].ended_early = true;
  EXPECT_TRUE(FindViolations(s).empty());
}

TEST_F(ValidateTest, CatchesPromisedDeadline) {
  ScheduleToValidate s = Make({Item("a", 1, 0, 10)});
  s.items[0].promised_deadline = 9;
  EXPECT_EQ(Kinds(s), std::vector<ViolationKind>{ViolationKind::kDeadline});
  s.items[0].promised_deadline = 10;
  EXPECT_TRUE(FindViolations(s).empty());
}

TEST_F(ValidateTest, CatchesMalformedAllocations) {
  ScheduleToValidate s = Make({Item("a", 9, 0, 10), Item("b", 0, 0, 10), Item("c", 1, 5, 4)});
  EXPECT_EQ(Kinds(s),
            (std::vector<ViolationKind>{ViolationKind::kMalformed, ViolationKind::kMalformed,
                                        ViolationKind::kMalformed}));
  ScheduleToValidate p = Make({Item("a", 1, 0, 10)});
  p.precedences.push_back({0, 3, 0});
  EXPECT_EQ(Kinds(p), std::vector<ViolationKind>{ViolationKind::kMalformed});
}

// Two groups of 4 (slow, speed 1) and 4 (fast, speed 2) on a cluster of 8.
ScheduleToValidate TwoSpeeds(std::vector<ScheduledItem> items) {
  ScheduleToValidate s;
  s.capacity = 8;
  s.groups = {{"slow", 4, 1.0}, {"fast", 4, 2.0}};
  s.items = std::move(items);
  return s;
}

TEST_F(ValidateTest, CatchesAGroupOverItsCountWhileTheClusterHasRoom) {
  ScheduledItem a = Item("a", 3, 0, 10), b = Item("b", 2, 5, 10), c = Item("c", 2, 0, 10);
  a.group = 1;
  b.group = 1;  // 5 busy in the fast group at 5; 7 in the whole cluster
  c.group = 0;
  EXPECT_EQ(Kinds(TwoSpeeds({a, b, c})), std::vector<ViolationKind>{ViolationKind::kCapacity});
  EXPECT_THAT(FindViolations(TwoSpeeds({a, b, c}))[0].message,
              ::testing::HasSubstr("5 processors busy at 5 on group 'fast' of 4"));
  b.group = 0;
  EXPECT_TRUE(FindViolations(TwoSpeeds({a, b, c})).empty());
}

TEST_F(ValidateTest, ChecksRunTimesAtTheGroupsSpeed) {
  ScheduledItem fast = Item("fast", 4, 0, 5), slow = Item("slow", 4, 0, 10);
  fast.model = &rigid4_10_;  // 10 us on reference processors: 5 us at speed 2
  fast.group = 1;
  slow.model = &rigid4_10_;
  slow.group = 0;
  EXPECT_TRUE(FindViolations(TwoSpeeds({fast, slow})).empty());
  fast.allocation.end = 10;  // the reference time, not the group's
  EXPECT_EQ(Kinds(TwoSpeeds({fast, slow})), std::vector<ViolationKind>{ViolationKind::kDuration});
}

TEST_F(ValidateTest, CatchesAnItemWithoutAGroupOrWiderThanItsGroup) {
  ScheduledItem none = Item("none", 1, 0, 10), wide = Item("wide", 5, 0, 10);
  wide.group = 0;
  EXPECT_EQ(Kinds(TwoSpeeds({none, wide})),
            (std::vector<ViolationKind>{ViolationKind::kMalformed, ViolationKind::kMalformed}));
  EXPECT_THAT(FindViolations(TwoSpeeds({none}))[0].message,
              ::testing::HasSubstr("names processor group -1; the schedule has 2"));
}

TEST_F(ValidateTest, AHoldNamingAGroupCountsInThatGroup) {
  ScheduledItem a = Item("a", 3, 0, 10);
  a.group = 1;
  ScheduleToValidate s = TwoSpeeds({a});
  s.holds = {{2, 5, 10}};
  s.hold_groups = {1};  // 5 busy in the fast group of 4
  EXPECT_EQ(Kinds(s), std::vector<ViolationKind>{ViolationKind::kCapacity});
  s.hold_groups = {-1};  // any group: the slow one has room
  EXPECT_TRUE(FindViolations(s).empty());
  s.hold_groups = {2};
  EXPECT_EQ(Kinds(s), std::vector<ViolationKind>{ViolationKind::kMalformed});
}

}  // namespace
}  // namespace resched
