#include "bridge/slurm/scontrol.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace resched::bridge::slurm {
namespace {

using ::testing::HasSubstr;

constexpr Time kSecond = kMicrosPerSecond;
// 2026-11-30T22:00:00Z
constexpr Time kNow = 1796076000 * kSecond;

ReservationChange Change(ReservationChange::Kind kind, std::string name, Time start, Time end,
                         int cores, std::vector<std::string> waiting = {}) {
  return {kind, BatchReservation{std::move(name), start, end, cores, "alice,bob", "physics"}, false,
          std::move(waiting)};
}

TEST(ScontrolTest, DeletionsComeFirstAndAMovedReservationKeepsTheJobsWaitingInIt) {
  const std::vector<ReservationChange> changes = {
      Change(ReservationChange::Kind::kCreate, "r-j3", kNow - kSecond, kNow + 60 * kSecond, 4),
      Change(ReservationChange::Kind::kUpdate, "r-j1", kNow + 60 * kSecond, kNow + 120 * kSecond, 2,
             {"41"}),
      Change(ReservationChange::Kind::kDelete, "r-j2", 0, 0, 0),
  };
  const std::string script = ScontrolScript(changes, {}, {"r-j1", "r-j2"}, "batch", kNow);
  EXPECT_EQ(script,
            "hold 41\n"
            "update JobId=41 ReservationName= AdminComment=\"resched-bridge: waiting for "
            "reservation r-j1\"\n"
            "delete ReservationName=r-j1\n"
            "delete ReservationName=r-j2\n"
            "create reservation ReservationName=r-j3 StartTime=now EndTime=2026-11-30T22:01:00 "
            "CoreCnt=4 PartitionName=batch Users=alice,bob Accounts=physics\n"
            "create reservation ReservationName=r-j1 StartTime=2026-11-30T22:01:00 "
            "EndTime=2026-11-30T22:02:00 CoreCnt=2 PartitionName=batch Users=alice,bob "
            "Accounts=physics\n"
            "update JobId=41 ReservationName=r-j1 AdminComment=\n"
            "release 41\n");
}

TEST(ScontrolTest, JobsAMoveLeftOutGoBackOrAreLetGo) {
  const std::vector<ParkedJob> parked = {{"41", "r-j1"}, {"42", "r-j2"}, {"43", "r-j4"}};
  const std::vector<ReservationChange> changes = {
      Change(ReservationChange::Kind::kDelete, "r-j2", 0, 0, 0)};
  // r-j1 is back: its job goes back in; r-j2 is gone for good: its job is released as it is;
  // r-j4 is not there yet: its job waits.
  const std::string script = ScontrolScript(changes, parked, {"r-j1"}, "batch", kNow);
  EXPECT_EQ(script,
            "update JobId=41 ReservationName=r-j1 AdminComment=\n"
            "release 41\n"
            "update JobId=42 AdminComment=\n"
            "release 42\n");
}

TEST(ScontrolTest, RunsTheProgramOnItsInputAndTellsItsExitAndErrors) {
  auto result = RunWithInput({"sh", "-c", "read a; read b; echo \"$a+$b $RESCHED_X\" >&2; exit 3"},
                             "one\ntwo\n", {"RESCHED_X=set"}, absl::Seconds(10));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_EQ(result->output, "one+two set\n");
  auto quiet = RunWithInput({"sh", "-c", "echo to-stdout"}, "", {}, absl::Seconds(10));
  ASSERT_TRUE(quiet.ok());
  EXPECT_EQ(quiet->output, "");
}

TEST(ScontrolTest, AProgramThatHangsIsKilledAndOneMissingIsAnError) {
  auto hung = RunWithInput({"sleep", "30"}, "", {}, absl::Milliseconds(200));
  EXPECT_EQ(hung.status().code(), absl::StatusCode::kDeadlineExceeded);
  auto missing = RunWithInput({"/nonexistent/scontrol"}, "", {}, absl::Seconds(1));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/scontrol"));
}

}  // namespace
}  // namespace resched::bridge::slurm
