// Status assertions for tests (Debian 12's Abseil ships no status matchers): failures print the
// status, not just "false".
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace resched::testing {

inline const absl::Status& StatusOf(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// The value of `status_or`; a failed one throws, which GoogleTest reports as a failure of the
// test with the status, rather than crashing the whole binary on a bad dereference.
template <typename T>
T OkValue(absl::StatusOr<T> status_or) {
  if (!status_or.ok()) throw std::runtime_error(status_or.status().ToString());
  return *std::move(status_or);
}

// For ASSERT_OK: absl::Status and absl::StatusOr, and the other status types the tests meet
// (grpc::Status, protobuf's util::Status), each printed in its own way.
template <typename T>
::testing::AssertionResult AssertOk(const char* expr_text, const T& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << expr_text << " is ";
  if constexpr (requires { StatusOf(status); }) {
    failure << StatusOf(status);
  } else if constexpr (requires { status.error_message(); }) {
    failure << "code " << static_cast<int>(status.error_code()) << ": " << status.error_message();
  } else {
    failure << status.ToString();
  }
  return failure;
}

// Matches an absl::Status or absl::StatusOr<T> with `code` and a message matching `message`.
MATCHER_P2(StatusIs, code, message,
           absl::StrCat("has status ", absl::StatusCodeToString(code), " and a message that ",
                        ::testing::DescribeMatcher<std::string>(message, false))) {
  const absl::Status& status = ::resched::testing::StatusOf(arg);
  *result_listener << "whose status is " << status;
  return status.code() == code &&
         ::testing::ExplainMatchResult(message, std::string(status.message()), result_listener);
}

}  // namespace resched::testing

// ASSERT_OK(expr) / EXPECT_OK(expr): expr (an absl::Status or absl::StatusOr) is OK; when not,
// the failure names the expression and prints its status. More context may be streamed in.
#define ASSERT_OK(expr) ASSERT_PRED_FORMAT1(::resched::testing::AssertOk, expr)
#define EXPECT_OK(expr) EXPECT_PRED_FORMAT1(::resched::testing::AssertOk, expr)
