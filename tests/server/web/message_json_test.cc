// MessageJson against protobuf's own printer: random schedule events, every field of every type
// they hold set or left out at random with values at the edges of their range, give the same JSON
// (the same names in the same order, the same values).
#include "server/web/message_json.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "resched/v1/journal.pb.h"
#include "resched/v1/service.pb.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

class RandomMessages {
 public:
  explicit RandomMessages(unsigned seed) : rng_(seed) {}

  // Sets each field of `message` with probability 1/2, down to `depth` levels of messages.
  void Fill(Message& message, int depth) {
    const auto& type = *message.GetDescriptor();
    if (type.full_name() == "google.protobuf.Timestamp") return FillTimestamp(message);
    if (type.full_name() == "google.protobuf.Duration") return FillDuration(message);
    const Reflection& reflection = *message.GetReflection();
    for (int i = 0; i < type.field_count(); ++i) {
      const FieldDescriptor& field = *type.field(i);
      if (Chance(2)) continue;
      if (field.is_map()) {
        for (int n = Below(3); n > 0; --n) {
          Message* entry = reflection.AddMessage(&message, &field);
          SetScalar(*entry, *field.message_type()->map_key(), depth);
          SetScalar(*entry, *field.message_type()->map_value(), depth);
        }
      } else if (field.is_repeated()) {
        for (int n = Below(4); n > 0; --n) {
          if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
            if (depth > 0) Fill(*reflection.AddMessage(&message, &field), depth - 1);
          } else {
            AddScalar(message, field);
          }
        }
      } else {
        SetScalar(message, field, depth);
      }
    }
  }

 private:
  bool Chance(int one_in) { return rng_() % one_in == 0; }
  int Below(int n) { return static_cast<int>(rng_() % n); }

  std::int64_t Int64() {
    switch (Below(4)) {
      case 0:
        return std::numeric_limits<std::int64_t>::min();
      case 1:
        return std::numeric_limits<std::int64_t>::max();
      case 2:
        return 0;
      default:
        return static_cast<std::int64_t>(rng_() >> 1) - (1LL << 62);
    }
  }
  std::int32_t Int32() {
    switch (Below(4)) {
      case 0:
        return std::numeric_limits<std::int32_t>::min();
      case 1:
        return std::numeric_limits<std::int32_t>::max();
      case 2:
        return -1;
      default:
        return static_cast<std::int32_t>(rng_() % 2000) - 1000;
    }
  }
  double Double() {
    switch (Below(8)) {
      case 0:
        return std::numeric_limits<double>::quiet_NaN();
      case 1:
        return Chance(2) ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity();
      case 2:
        return std::numeric_limits<double>::denorm_min();
      case 3:
        return std::numeric_limits<double>::max();
      case 4:
        return 0.1 + 0.12;  // 0.22000000000000003
      case 5:
        return static_cast<double>(Below(100));
      default:
        return std::ldexp(static_cast<double>(rng_()) / 1e9, Below(200) - 100);
    }
  }
  std::string Text() {
    static const char* const kTexts[] = {"",
                                         "j42",
                                         "quote \" backslash \\ slash /",
                                         "tab\tnew\nline",
                                         "\x01\x1f control",
                                         "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                                         "<script>&amp;</script>",
                                         "\xe2\x80\xa8 line separator"};
    return kTexts[Below(std::size(kTexts))];
  }

  void FillTimestamp(Message& message) {
    const std::int64_t seconds = Chance(3)   ? -62'135'596'800 + Below(1000)
                                 : Chance(2) ? 253'402'300'799 - Below(1000)
                                             : static_cast<std::int64_t>(rng_() % 4'000'000'000);
    SetSecondsAndNanos(message, seconds, Nanos(false));
  }
  void FillDuration(Message& message) {
    std::int64_t seconds =
        Chance(4) ? 315'576'000'000 : static_cast<std::int64_t>(rng_() % 100'000);
    std::int32_t nanos = Nanos(false);
    if (Chance(2)) {
      seconds = -seconds;
      nanos = -nanos;
    }
    SetSecondsAndNanos(message, seconds, nanos);
  }
  std::int32_t Nanos(bool) {
    switch (Below(4)) {
      case 0:
        return 0;
      case 1:
        return Below(1000) * 1'000'000;
      case 2:
        return Below(1'000'000) * 1'000;
      default:
        return Below(1'000'000'000);
    }
  }
  static void SetSecondsAndNanos(Message& message, std::int64_t seconds, std::int32_t nanos) {
    const auto& type = *message.GetDescriptor();
    message.GetReflection()->SetInt64(&message, type.FindFieldByNumber(1), seconds);
    message.GetReflection()->SetInt32(&message, type.FindFieldByNumber(2), nanos);
  }

  int EnumNumber(const FieldDescriptor& field) {
    const auto& values = *field.enum_type();
    return values.value(Below(values.value_count()))->number();
  }

  void SetScalar(Message& message, const FieldDescriptor& field, int depth) {
    const Reflection& reflection = *message.GetReflection();
    switch (field.cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return reflection.SetInt32(&message, &field, Int32());
      case FieldDescriptor::CPPTYPE_INT64:
        return reflection.SetInt64(&message, &field, Int64());
      case FieldDescriptor::CPPTYPE_UINT32:
        return reflection.SetUInt32(&message, &field, static_cast<std::uint32_t>(rng_()));
      case FieldDescriptor::CPPTYPE_UINT64:
        return reflection.SetUInt64(&message, &field, static_cast<std::uint64_t>(Int64()));
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return reflection.SetDouble(&message, &field, Double());
      case FieldDescriptor::CPPTYPE_FLOAT:
        return reflection.SetFloat(&message, &field, static_cast<float>(Below(100)) / 8);
      case FieldDescriptor::CPPTYPE_BOOL:
        return reflection.SetBool(&message, &field, Chance(2));
      case FieldDescriptor::CPPTYPE_ENUM:
        return reflection.SetEnumValue(&message, &field, EnumNumber(field));
      case FieldDescriptor::CPPTYPE_STRING:
        return reflection.SetString(&message, &field, Text());
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (depth > 0) Fill(*reflection.MutableMessage(&message, &field), depth - 1);
        return;
    }
  }
  void AddScalar(Message& message, const FieldDescriptor& field) {
    const Reflection& reflection = *message.GetReflection();
    switch (field.cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return reflection.AddInt32(&message, &field, Int32());
      case FieldDescriptor::CPPTYPE_INT64:
        return reflection.AddInt64(&message, &field, Int64());
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return reflection.AddDouble(&message, &field, Double());
      case FieldDescriptor::CPPTYPE_BOOL:
        return reflection.AddBool(&message, &field, Chance(2));
      case FieldDescriptor::CPPTYPE_ENUM:
        return reflection.AddEnumValue(&message, &field, EnumNumber(field));
      case FieldDescriptor::CPPTYPE_STRING:
        return reflection.AddString(&message, &field, Text());
      default:
        FAIL() << "no random value for repeated " << field.full_name();
    }
  }

  std::mt19937_64 rng_;
};

// What protobuf's printer writes for `message`, checked to succeed.
std::string PrinterJson(const Message& message) {
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return json;
}

TEST(MessageJson, RandomScheduleEventsAreWrittenAsProtobufsPrinterWritesThem) {
  RandomMessages random(11);
  int compared = 0;
  for (int i = 0; i < 3000; ++i) {
    pb::ScheduleEvent event;
    random.Fill(event, 5);
    const std::optional<std::string> ours = MessageJson(event);
    ASSERT_TRUE(ours.has_value()) << event.DebugString();
    const std::string theirs = PrinterJson(event);
    // Parsed keeping the order of names: the same names, in the same order, with equal values.
    const auto ours_parsed = nlohmann::ordered_json::parse(*ours);
    const auto theirs_parsed = nlohmann::ordered_json::parse(theirs);
    ASSERT_EQ(ours_parsed, theirs_parsed) << "ours:   " << *ours << "\ntheirs: " << theirs;
    compared += theirs.size() > 2;
  }
  EXPECT_GT(compared, 2000);
}

TEST(MessageJson, AnEventOfTheServerIsTheSameText) {
  pb::ScheduleEvent event;
  event.set_kind(pb::ScheduleEvent::JOB_CHANGED);
  event.set_sequence(8006);
  pb::Job& job = *event.mutable_job();
  job.set_id("j8006");
  job.set_cluster("loadgen-0");
  job.mutable_spec()->set_owner("loadgen");
  job.mutable_spec()->set_weight(1);
  job.mutable_spec()->mutable_model()->mutable_rigid()->set_k(12);
  job.mutable_spec()->mutable_model()->mutable_rigid()->mutable_time()->set_seconds(7045);
  job.set_state(pb::QUEUED);
  job.mutable_allocation()->set_processors(12);
  job.mutable_allocation()->mutable_start()->set_seconds(242842);
  job.mutable_allocation()->mutable_start()->set_nanos(500'000'000);
  for (int id : {425, 427, 432}) job.mutable_allocation()->add_processor_ids(id);
  job.set_guaranteed(true);
  job.mutable_sequential_time()->set_seconds(84540);
  job.mutable_sequential_time()->set_nanos(-0);
  // Integral doubles are the one difference in text: 1.0 where protobuf writes 1.
  std::string expected = PrinterJson(event);
  const std::string weight = "\"weight\":1,";
  ASSERT_NE(expected.find(weight), std::string::npos) << expected;
  expected.replace(expected.find(weight), weight.size(), "\"weight\":1.0,");
  EXPECT_EQ(MessageJson(event), expected);
}

TEST(MessageJson, WhatItDoesNotMapIsLeftToProtobufsPrinter) {
  pb::JournalRecord record;
  EXPECT_TRUE(MessageJson(record).has_value());
  record.set_reply("bytes");  // bytes: base64 in the mapping
  EXPECT_EQ(MessageJson(record), std::nullopt);

  pb::ScheduleEvent event;
  event.mutable_now()->set_seconds(253'402'300'800);  // 10000-01-01: past the mapping's range
  EXPECT_EQ(MessageJson(event), std::nullopt);
  event.mutable_now()->set_seconds(0);
  event.mutable_now()->set_nanos(-1);
  EXPECT_EQ(MessageJson(event), std::nullopt);
  event.mutable_now()->set_nanos(0);
  EXPECT_EQ(MessageJson(event), "{\"now\":\"1970-01-01T00:00:00Z\"}");
  EXPECT_EQ(MessageJson(*event.mutable_now()), std::nullopt);  // a well-known type itself
}

}  // namespace
}  // namespace resched::server::web
