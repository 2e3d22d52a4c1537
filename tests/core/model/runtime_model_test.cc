#include "core/model/runtime_model.h"

#include <gtest/gtest.h>

#include "tests/testing/status.h"

namespace resched {
namespace {

constexpr Duration kSecond = kMicrosPerSecond;

TEST(RuntimeModelTest, AmdahlFollowsTheFormula) {
  RuntimeModel m(AmdahlModel{100 * kSecond, 0.2, 1, 8});
  ASSERT_OK(m.Validate());
  EXPECT_EQ(m.TimeOn(1), 100 * kSecond);
  EXPECT_EQ(m.TimeOn(4), 40 * kSecond);  // 100 * (0.2 + 0.8 / 4)
  EXPECT_EQ(m.Widths(64), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(m.Widths(3), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(m.SequentialTime(), 100 * kSecond);
  EXPECT_TRUE(m.CheckMonotony(8).monotonic());
}

TEST(RuntimeModelTest, OnSpeedDividesEveryTimeAndKeepsTheWidths) {
  const RuntimeModel reference(AmdahlModel{100 * kSecond, 0.2, 1, 8});
  const RuntimeModel fast = reference.OnSpeed(2.5);
  EXPECT_EQ(fast.speed(), 2.5);
  EXPECT_EQ(fast.TimeOn(4), 16 * kSecond);  // 40 s / 2.5
  EXPECT_EQ(fast.SequentialTime(), 40 * kSecond);
  EXPECT_EQ(fast.Widths(64), reference.Widths(64));
  EXPECT_EQ(fast.OnSpeed(1).TimeOn(4), reference.TimeOn(4)) << "a speed replaces the previous";
  // 7 us / 3 rounds up; the table's extrapolated p(1) is scaled the same way.
  const RuntimeModel table(TableModel{{{2, 7}}});
  EXPECT_EQ(table.OnSpeed(3).TimeOn(2), 3);
  EXPECT_EQ(table.OnSpeed(3).SequentialTime(), 5);  // 14 us / 3
}

TEST(RuntimeModelTest, AmdahlRoundsUpToTheMicrosecond) {
  RuntimeModel m(AmdahlModel{1 * kSecond, 0, 1, 0});
  EXPECT_EQ(m.TimeOn(3), 333'334);  // 1/3 s rounded up
}

TEST(RuntimeModelTest, DowneyMatchesItsSpeedupFunction) {
  // sigma <= 1, A = 4, sigma = 0.5: S(2) = 4*2 / (4 + 0.5*1/2) = 8 / 4.25.
  RuntimeModel low(DowneyModel{85 * kSecond, 4, 0.5, 1, 0});
  EXPECT_EQ(low.TimeOn(1), 85 * kSecond);
  EXPECT_EQ(low.TimeOn(2), CeilMicros(85.0 * 4.25 / 8));
  // n >= 2A - 1 = 7: S = A.
  EXPECT_EQ(low.TimeOn(7), CeilMicros(85.0 / 4));
  EXPECT_EQ(low.TimeOn(32), CeilMicros(85.0 / 4));
  // sigma > 1, A = 4, sigma = 2: S(3) = 3*4*3 / (2*(3+4-1) + 4) = 36 / 16.
  RuntimeModel high(DowneyModel{90 * kSecond, 4, 2, 1, 0});
  EXPECT_EQ(high.TimeOn(3), CeilMicros(90.0 * 16 / 36));
  // n > A + A*sigma - sigma = 10: S = A.
  EXPECT_EQ(high.TimeOn(11), CeilMicros(90.0 / 4));
}

TEST(RuntimeModelTest, RigidAllowsOneWidth) {
  RuntimeModel m(RigidModel{4, 10 * kSecond});
  EXPECT_TRUE(m.IsRigid());
  EXPECT_EQ(m.Widths(64), std::vector<int>{4});
  EXPECT_TRUE(m.Widths(3).empty());
  EXPECT_EQ(m.TimeOn(4), 10 * kSecond);
  EXPECT_EQ(m.SequentialTime(), 40 * kSecond);
}

TEST(RuntimeModelTest, PowerOfTwoAllowsPowersOnly) {
  RuntimeModel m(PowerOfTwoModel{{80 * kSecond, 45 * kSecond, 25 * kSecond}});
  EXPECT_EQ(m.Widths(64), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(m.Widths(3), (std::vector<int>{1, 2}));
  EXPECT_EQ(m.TimeOn(4), 25 * kSecond);
}

TEST(RuntimeModelTest, CeilModelOfChretien) {
  RuntimeModel m(CeilModel{10, 3 * kSecond});
  EXPECT_EQ(m.TimeOn(10), 3 * kSecond);
  EXPECT_EQ(m.TimeOn(3), 12 * kSecond);  // ceil(10/3) = 4
  EXPECT_EQ(m.TimeOn(1), 30 * kSecond);
  EXPECT_EQ(m.Widths(64).size(), 10u);
}

TEST(RuntimeModelTest, CommunicationModelUsesTheSquarestGrid) {
  CommunicationModel c{};
  c.flops = 8e9;
  c.matrix_size = 1000;
  c.latency_s = 0.001;
  c.bandwidth = 1e8;
  c.processor_speed = 1e9;
  RuntimeModel m(c);
  ASSERT_OK(m.Validate());
  EXPECT_EQ(m.TimeOn(1), 8 * kSecond);  // no communication on one processor
  // p = 4: grid 2x2, comm = 1e6 * 2 / 1e8 = 0.02 s, compute 2 s, latency 1 ms.
  EXPECT_EQ(m.TimeOn(4), CeilMicros(2.021));
  // p = 6: grid 2x3, comm = 1e6 * 3 / 1e8 = 0.03 s.
  EXPECT_EQ(m.TimeOn(6), CeilMicros(8.0 / 6 + 0.001 + 0.03));
}

TEST(RuntimeModelTest, TableReportsNonMonotonicity) {
  RuntimeModel m(TableModel{{{1, 100}, {2, 60}, {3, 70}, {4, 20}}});
  ASSERT_OK(m.Validate());
  const auto report = m.CheckMonotony(8);
  EXPECT_FALSE(report.time_non_increasing);
  EXPECT_EQ(report.first_time_violation_k, 3);
  EXPECT_FALSE(report.work_non_decreasing);  // 4 * 20 < 3 * 70
  EXPECT_EQ(report.first_work_violation_k, 4);
}

TEST(RuntimeModelTest, ValidationNamesTheFieldAndTheLimit) {
  auto message = [](RuntimeModelParams p) {
    return std::string(RuntimeModel(std::move(p)).Validate().message());
  };
  EXPECT_EQ(message(AmdahlModel{kSecond, 1.5, 1, 0}), "amdahl.alpha must be in [0, 1], got 1.5");
  EXPECT_NE(message(AmdahlModel{0, 0.1, 1, 0}).find("amdahl.t1 must be > 0"), std::string::npos);
  EXPECT_NE(message(AmdahlModel{kSecond, 0.1, 4, 2}).find("amdahl.k_max"), std::string::npos);
  EXPECT_NE(message(DowneyModel{kSecond, 0.5, 0, 1, 0}).find("downey.a must be in [1"),
            std::string::npos);
  EXPECT_NE(message(RigidModel{0, kSecond}).find("rigid.k must be in [1"), std::string::npos);
  EXPECT_NE(message(TableModel{{{2, 5}, {2, 4}}}).find("table.entries[1].k"), std::string::npos);
  EXPECT_NE(message(TableModel{}).find("table.entries is empty"), std::string::npos);
  EXPECT_NE(message(PowerOfTwoModel{{5, -1}}).find("power_of_two.times[1]"), std::string::npos);
  EXPECT_NE(message(CeilModel{0, 5}).find("ceil.req_procs"), std::string::npos);
  EXPECT_NE(message(CommunicationModel{}).find("communication.flops"), std::string::npos);
}

}  // namespace
}  // namespace resched
