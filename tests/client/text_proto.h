// Protobuf messages from text format, for the client tests.
#pragma once

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>

namespace resched::cli {

template <typename T>
T Text(const std::string& text) {
  T m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m)) << text;
  return m;
}

}  // namespace resched::cli
