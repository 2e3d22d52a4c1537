#include "server/web/message_json.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace resched::server::web {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
// Fields in the order protobuf writes them (field numbers), as its printer keeps them.
using Json = nlohmann::ordered_json;

// The mapping's range of Timestamp (0001-01-01 to 9999-12-31) and Duration (10,000 years).
constexpr std::int64_t kMinTimestampSeconds = -62'135'596'800;
constexpr std::int64_t kMaxTimestampSeconds = 253'402'300'799;
constexpr std::int64_t kMaxDurationSeconds = 315'576'000'000;
constexpr std::int32_t kNanosPerSecond = 1'000'000'000;

// The fraction of a second as protobuf writes it: none, or 3, 6 or 9 digits.
std::string Fraction(std::int32_t nanos) {
  if (nanos == 0) return "";
  if (nanos % 1'000'000 == 0) return absl::StrFormat(".%03d", nanos / 1'000'000);
  if (nanos % 1'000 == 0) return absl::StrFormat(".%06d", nanos / 1'000);
  return absl::StrFormat(".%09d", nanos);
}

// The two fields of a Timestamp or Duration (seconds, nanos).
std::pair<std::int64_t, std::int32_t> SecondsAndNanos(const Message& message) {
  const Descriptor& type = *message.GetDescriptor();
  const Reflection& reflection = *message.GetReflection();
  return {reflection.GetInt64(message, type.FindFieldByNumber(1)),
          reflection.GetInt32(message, type.FindFieldByNumber(2))};
}

std::optional<std::string> TimestampText(const Message& message) {
  const auto [seconds, nanos] = SecondsAndNanos(message);
  if (seconds < kMinTimestampSeconds || seconds > kMaxTimestampSeconds || nanos < 0 ||
      nanos >= kNanosPerSecond) {
    return std::nullopt;
  }
  const absl::CivilSecond time =
      absl::ToCivilSecond(absl::FromUnixSeconds(seconds), absl::UTCTimeZone());
  return absl::StrCat(absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d", time.year(), time.month(),
                                      time.day(), time.hour(), time.minute(), time.second()),
                      Fraction(nanos), "Z");
}

std::optional<std::string> DurationText(const Message& message) {
  auto [seconds, nanos] = SecondsAndNanos(message);
  if (seconds < -kMaxDurationSeconds || seconds > kMaxDurationSeconds ||
      nanos <= -kNanosPerSecond || nanos >= kNanosPerSecond || (seconds < 0 && nanos > 0) ||
      (seconds > 0 && nanos < 0)) {
    return std::nullopt;
  }
  const bool negative = seconds < 0 || nanos < 0;
  return absl::StrCat(negative ? "-" : "", negative ? -seconds : seconds,
                      Fraction(negative ? -nanos : nanos), "s");
}

bool ObjectOf(const Message& message, Json& out);

// A double as the mapping writes it: a number, or "NaN", "Infinity", "-Infinity".
Json DoubleOf(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

// The value of `field` (its element `index` when repeated); false for what this does not map.
// `reflection` is the message's, asked for once per message: each GetReflection call goes through
// protobuf's once-only descriptor set-up (a lock-free check, but a call per element of a list of
// a thousand processor ids).
bool ValueOf(const Message& message, const Reflection& reflection, const FieldDescriptor& field,
             int index, Json& out) {
  const bool repeated = field.is_repeated();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      out = repeated ? reflection.GetRepeatedInt32(message, &field, index)
                     : reflection.GetInt32(message, &field);
      return true;
    case FieldDescriptor::CPPTYPE_UINT32:
      out = repeated ? reflection.GetRepeatedUInt32(message, &field, index)
                     : reflection.GetUInt32(message, &field);
      return true;
    case FieldDescriptor::CPPTYPE_INT64:
      out = absl::StrCat(repeated ? reflection.GetRepeatedInt64(message, &field, index)
                                  : reflection.GetInt64(message, &field));
      return true;
    case FieldDescriptor::CPPTYPE_UINT64:
      out = absl::StrCat(repeated ? reflection.GetRepeatedUInt64(message, &field, index)
                                  : reflection.GetUInt64(message, &field));
      return true;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      out = DoubleOf(repeated ? reflection.GetRepeatedDouble(message, &field, index)
                              : reflection.GetDouble(message, &field));
      return true;
    case FieldDescriptor::CPPTYPE_BOOL:
      out = repeated ? reflection.GetRepeatedBool(message, &field, index)
                     : reflection.GetBool(message, &field);
      return true;
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int number = repeated ? reflection.GetRepeatedEnumValue(message, &field, index)
                                  : reflection.GetEnumValue(message, &field);
      if (field.enum_type()->full_name() == "google.protobuf.NullValue") return false;
      const auto* value = field.enum_type()->FindValueByNumber(number);
      if (value != nullptr) {
        out = value->name();
      } else {
        out = number;  // a value this build does not know: its number, as protobuf writes it
      }
      return true;
    }
    case FieldDescriptor::CPPTYPE_STRING:
      if (field.type() == FieldDescriptor::TYPE_BYTES) return false;
      out = repeated ? reflection.GetRepeatedString(message, &field, index)
                     : reflection.GetString(message, &field);
      return true;
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Message& value = repeated ? reflection.GetRepeatedMessage(message, &field, index)
                                      : reflection.GetMessage(message, &field);
      const std::string& type = value.GetDescriptor()->full_name();
      if (type == "google.protobuf.Timestamp" || type == "google.protobuf.Duration") {
        std::optional<std::string> text =
            type == "google.protobuf.Timestamp" ? TimestampText(value) : DurationText(value);
        if (!text) return false;
        out = *std::move(text);
        return true;
      }
      if (type.starts_with("google.protobuf.")) return false;
      return ObjectOf(value, out);
    }
    case FieldDescriptor::CPPTYPE_FLOAT:
      return false;  // protobuf writes floats with fewer digits than a double's
  }
  return false;
}

// A map field's entries as an object: its keys as strings.
bool MapOf(const Message& message, const FieldDescriptor& field, Json& out) {
  const Reflection& reflection = *message.GetReflection();
  out = Json::object();
  const FieldDescriptor& key_field = *field.message_type()->map_key();
  const FieldDescriptor& value_field = *field.message_type()->map_value();
  for (int i = 0; i < reflection.FieldSize(message, &field); ++i) {
    const Message& entry = reflection.GetRepeatedMessage(message, &field, i);
    Json key;
    const Reflection& entry_reflection = *entry.GetReflection();
    if (!ValueOf(entry, entry_reflection, key_field, -1, key)) return false;
    std::string name = key.is_string() ? key.get<std::string>() : key.dump();
    if (!ValueOf(entry, entry_reflection, value_field, -1, out[std::move(name)])) return false;
  }
  return true;
}

bool ObjectOf(const Message& message, Json& out) {
  out = Json::object();
  const Reflection& reflection = *message.GetReflection();
  // The fields set, by number: proto3's scalars when not at their default, the others when
  // present, as the wire format carries them.
  std::vector<const FieldDescriptor*> fields;
  reflection.ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    Json& value = out[field->json_name()];
    if (field->is_map()) {
      if (!MapOf(message, *field, value)) return false;
    } else if (field->is_repeated()) {
      const int size = reflection.FieldSize(message, field);
      value = Json::array();
      value.get_ref<Json::array_t&>().reserve(static_cast<std::size_t>(size));
      for (int i = 0; i < size; ++i) {
        if (!ValueOf(message, reflection, *field, i, value.emplace_back())) return false;
      }
    } else if (!ValueOf(message, reflection, *field, -1, value)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> MessageJson(const Message& message) {
  if (message.GetDescriptor()->full_name().starts_with("google.protobuf.")) return std::nullopt;
  Json json;
  if (!ObjectOf(message, json)) return std::nullopt;
  // Text that is not UTF-8 (which protobuf would not have parsed) is written replaced, not thrown.
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace resched::server::web
