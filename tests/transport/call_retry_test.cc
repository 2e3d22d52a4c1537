// Retrying calls across a cluster's move (transport/call_retry.h): UNAVAILABLE is retried after
// the server's RetryInfo delay, else after 100 ms doubling up to 1 s; other codes are not;
// a retried request's ALREADY_EXISTS gives its first answer; request ids are new each time.
#include "transport/call_retry.h"

#include <gtest/gtest.h>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "resched/v1/service.pb.h"

namespace resched::transport {
namespace {

grpc::Status WithDetail(grpc::StatusCode code, const google::protobuf::Message& detail) {
  google::rpc::Status rich;
  rich.set_code(code);
  rich.set_message("m");
  rich.add_details()->PackFrom(detail);
  return grpc::Status(code, "m", rich.SerializeAsString());
}

TEST(CallRetry, UnavailableWaitsWhatTheServerAsksElseAGrowingPause) {
  google::rpc::RetryInfo retry;
  retry.mutable_retry_delay()->set_nanos(250'000'000);
  EXPECT_EQ(RetryDelay(WithDetail(grpc::StatusCode::UNAVAILABLE, retry), 0).count(), 250);
  const grpc::Status bare(grpc::StatusCode::UNAVAILABLE, "gone");
  EXPECT_EQ(RetryDelay(bare, 0).count(), 100);
  EXPECT_EQ(RetryDelay(bare, 1).count(), 200);
  EXPECT_EQ(RetryDelay(bare, 3).count(), 800);
  EXPECT_EQ(RetryDelay(bare, 9).count(), 1000);
  EXPECT_LT(RetryDelay(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad"), 0).count(), 0);
  EXPECT_LT(RetryDelay(grpc::Status::OK, 0).count(), 0);
}

TEST(CallRetry, ACallIsMadeAgainWhileUnavailableAndBeforeItsDeadline) {
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(10);
  int tries = 0;
  bool retried = false;
  grpc::Status status = CallUntilAnswered(
      deadline,
      [&] {
        return ++tries < 3 ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "moving")
                           : grpc::Status::OK;
      },
      &retried);
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(tries, 3);
  EXPECT_TRUE(retried);
  tries = 0;
  status = CallUntilAnswered(
      deadline,
      [&] {
        ++tries;
        return grpc::Status(grpc::StatusCode::NOT_FOUND, "no");
      },
      &retried);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(tries, 1);
  EXPECT_FALSE(retried);
  // The next try would start past the deadline: the last answer stands.
  tries = 0;
  status = CallUntilAnswered(
      std::chrono::system_clock::now() + std::chrono::milliseconds(150),
      [&] {
        ++tries;
        return grpc::Status(grpc::StatusCode::UNAVAILABLE, "moving");
      },
      &retried);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  // At 0 ms and at 100 ms (the first alone on a machine slow enough); the next would be at 300.
  EXPECT_GE(tries, 1);
  EXPECT_LE(tries, 2);
}

TEST(CallRetry, ARetriedRequestsAlreadyExistsCarriesTheFirstAnswer) {
  v1::SubmitJobResponse first;
  first.mutable_job()->set_id("j7");
  v1::SubmitJobResponse answer;
  ASSERT_TRUE(FirstAnswer(WithDetail(grpc::StatusCode::ALREADY_EXISTS, first), &answer));
  EXPECT_EQ(answer.job().id(), "j7");
  EXPECT_FALSE(FirstAnswer(grpc::Status(grpc::StatusCode::ALREADY_EXISTS, "no details"), &answer));
  EXPECT_FALSE(FirstAnswer(WithDetail(grpc::StatusCode::UNAVAILABLE, first), &answer));
}

TEST(CallRetry, RequestIdsAreNewEachTime) {
  const std::string a = NewRequestId("cli-");
  EXPECT_EQ(a.substr(0, 4), "cli-");
  EXPECT_EQ(a.size(), 4u + 32u);
  EXPECT_NE(NewRequestId("cli-"), a);
}

}  // namespace
}  // namespace resched::transport
