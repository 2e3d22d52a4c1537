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

#define RESCHED_STATUS_CHECK_(assertion, expr)                                  \
  do {                                                                          \
    const auto& resched_status_or_ = (expr);                                    \
    assertion(::resched::testing::StatusOf(resched_status_or_).ok())            \
        << #expr << " is " << ::resched::testing::StatusOf(resched_status_or_); \
  } while (false)

// ASSERT_OK(expr) / EXPECT_OK(expr): expr (an absl::Status or absl::StatusOr) is OK; when not,
// the failure names the expression and prints its status.
#define ASSERT_OK(expr) RESCHED_STATUS_CHECK_(ASSERT_TRUE, expr)
#define EXPECT_OK(expr) RESCHED_STATUS_CHECK_(EXPECT_TRUE, expr)
