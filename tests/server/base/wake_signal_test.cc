// WakeSignal: a Wait returns for a Raise (one made before it too, and many as one), for the
// watched socket's peer hanging up, and otherwise only when its timeout passes; the socket's
// unread input does not wake it (also under ThreadSanitizer, make test-tsan).
#include "server/base/wake_signal.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <thread>

namespace resched::server {
namespace {

using std::chrono::milliseconds;
using Woken = WakeSignal::Woken;

// Long enough that a Wait returning before it was woken, not timed out.
constexpr auto kNever = std::chrono::seconds(60);

TEST(WakeSignalTest, ARaiseBeforeTheWaitWakesItAndManyRaisesWakeItOnce) {
  WakeSignal signal;
  ASSERT_TRUE(signal.ok());
  EXPECT_EQ(signal.Wait(milliseconds(0)), Woken::kTimedOut);
  signal.Raise();
  signal.Raise();
  EXPECT_EQ(signal.Wait(kNever), Woken::kRaised);
  EXPECT_EQ(signal.Wait(milliseconds(20)), Woken::kTimedOut);  // both taken by the first Wait
}

TEST(WakeSignalTest, ARaiseFromAnotherThreadWakesAWaiter) {
  WakeSignal signal;
  std::thread raiser([&] {
    std::this_thread::sleep_for(milliseconds(20));
    signal.Raise();
  });
  EXPECT_EQ(signal.Wait(kNever), Woken::kRaised);
  raiser.join();
}

class WatchedSocketTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, ends_.data()), 0); }
  void TearDown() override {
    for (int end : ends_) {
      if (end >= 0) close(end);
    }
  }
  void ClosePeer() {
    close(ends_[1]);
    ends_[1] = -1;
  }

  std::array<int, 2> ends_{-1, -1};  // [0] watched, [1] its peer
};

TEST_F(WatchedSocketTest, APeerThatHangsUpWakesTheWaiter) {
  WakeSignal signal;
  std::thread leaver([this] {
    std::this_thread::sleep_for(milliseconds(20));
    ClosePeer();
  });
  EXPECT_EQ(signal.Wait(kNever, ends_[0]), Woken::kHungUp);
  leaver.join();
}

TEST_F(WatchedSocketTest, AHangUpIsSeenBeforeARaise) {
  WakeSignal signal;
  signal.Raise();
  ClosePeer();
  EXPECT_EQ(signal.Wait(kNever, ends_[0]), Woken::kHungUp);
}

// A socket closed here ends the wait too, rather than returning at once for ever.
TEST_F(WatchedSocketTest, ASocketNoLongerOpenIsAHangUp) {
  WakeSignal signal;
  const int closed = ends_[0];
  close(closed);
  ends_[0] = -1;
  EXPECT_EQ(signal.Wait(kNever, closed), Woken::kHungUp);
}

TEST_F(WatchedSocketTest, UnreadInputDoesNotWakeTheWaiter) {
  WakeSignal signal;
  ASSERT_EQ(write(ends_[1], "x", 1), 1);
  EXPECT_EQ(signal.Wait(milliseconds(20), ends_[0]), Woken::kTimedOut);
  signal.Raise();
  EXPECT_EQ(signal.Wait(kNever, ends_[0]), Woken::kRaised);
}

}  // namespace
}  // namespace resched::server
