// Protobuf messages from text format, for tests that compare messages.
#pragma once

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>

namespace resched::testing {

template <typename T>
T Text(const std::string& text) {
  T m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m)) << text;
  return m;
}

// `actual` equals the message `text` describes: compared as messages, not as printed text.
template <typename T>
::testing::AssertionResult EqualsText(const T& actual, const std::string& text) {
  const T expected = Text<T>(text);
  if (google::protobuf::util::MessageDifferencer::Equals(actual, expected)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "got " << actual.ShortDebugString() << "\nexpected " << expected.ShortDebugString();
}

}  // namespace resched::testing
