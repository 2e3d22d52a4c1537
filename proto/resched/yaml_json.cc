#include "proto/resched/yaml_json.h"

#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace resched::api {
namespace {

constexpr std::string_view kStrTag = "tag:yaml.org,2002:str";

bool IsNull(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xf]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

bool IsDigit(char c, int base) {
  if (base == 16) return absl::ascii_isxdigit(static_cast<unsigned char>(c));
  return c >= '0' && c < '0' + base;
}

// Skips the digits of `base` at s[*i]; returns how many there were.
size_t SkipDigits(std::string_view s, size_t* i, int base = 10) {
  size_t start = *i;
  while (*i < s.size() && IsDigit(s[*i], base)) ++*i;
  return *i - start;
}

// The YAML 1.2 core schema float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool IsFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t whole = SkipDigits(s, &i), fraction = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction = SkipDigits(s, &i);
  }
  if (whole == 0 && fraction == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (SkipDigits(s, &i) == 0) return false;
  }
  return i == s.size();
}

// YAML 1.2 core schema integers ([-+]?[0-9]+, 0x[0-9a-fA-F]+, 0o[0-7]+) as canonical JSON;
// false if `s` is not one.
bool AppendInteger(std::string_view s, std::string* out) {
  int base = 10;
  bool negative = false;
  std::string_view digits = s;
  if (absl::StartsWith(absl::string_view(s.data(), s.size()), "0x")) {
    base = 16;
    digits.remove_prefix(2);
  } else if (absl::StartsWith(absl::string_view(s.data(), s.size()), "0o")) {
    base = 8;
    digits.remove_prefix(2);
  } else if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  size_t i = 0;
  if (SkipDigits(digits, &i, base) == 0 || i != digits.size()) return false;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    // Too large for 64 bits: keep the digits; protobuf reports the range error.
    AppendJsonString(s, out);
    return true;
  }
  if (negative && v != 0) out->push_back('-');
  out->append(std::to_string(v));
  return true;
}

// YAML 1.2 core schema floats as JSON numbers, and .inf/.nan as the strings protobuf's JSON
// accepts; false if `s` is not one.
bool AppendFloat(std::string_view s, std::string* out) {
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "+.Inf" || s == "+.INF") {
    out->append("\"Infinity\"");
    return true;
  }
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF") {
    out->append("\"-Infinity\"");
    return true;
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") {
    out->append("\"NaN\"");
    return true;
  }
  if (!IsFloat(s)) return false;
  std::string_view text = s;
  if (text[0] == '+') text.remove_prefix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    AppendJsonString(s, out);  // out of range: let protobuf name the field
    return true;
  }
  std::array<char, 64> buf;
  auto res = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out->append(buf.data(), res.ptr);
  return true;
}

void AppendScalar(const YAML::Node& node, std::string* out) {
  const std::string& s = node.Scalar();
  const std::string& tag = node.Tag();
  // "!" marks a quoted (non-plain) scalar; an explicit !!str forces a string.
  if (tag == "!" || tag == kStrTag) {
    AppendJsonString(s, out);
    return;
  }
  if (IsNull(s)) {
    out->append("null");
  } else if (s == "true" || s == "True" || s == "TRUE") {
    out->append("true");
  } else if (s == "false" || s == "False" || s == "FALSE") {
    out->append("false");
  } else if (!AppendInteger(s, out) && !AppendFloat(s, out)) {
    AppendJsonString(s, out);
  }
}

absl::Status Location(const YAML::Mark& mark, const std::string& what) {
  if (mark.is_null()) return absl::InvalidArgumentError(absl::StrCat("YAML: ", what));
  return absl::InvalidArgumentError(
      absl::StrCat("YAML line ", mark.line + 1, ", column ", mark.column + 1, ": ", what));
}

// Aliases share a node, so a small document may stand for a huge tree (nine anchors each
// listing the previous one nine times: 9^9 scalars). The JSON written is bounded by this many
// times the document's size, and every node visited writes a byte at least, so the walk is too.
constexpr std::size_t kMaxExpansion = 16;
constexpr std::size_t kMinJsonBudget = 64 << 10;

absl::Status AppendNode(const YAML::Node& node, int depth, std::size_t budget, std::string* out) {
  if (depth > 100) return Location(node.Mark(), "nested more than 100 levels deep");
  if (out->size() > budget) {
    return Location(
        node.Mark(),
        absl::StrCat("aliases expand the document past ", budget, " bytes of JSON (", kMaxExpansion,
                     " times its size, the limit); write the repeated parts out"));
  }
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out->append("null");
      return absl::OkStatus();
    case YAML::NodeType::Scalar:
      AppendScalar(node, out);
      return absl::OkStatus();
    case YAML::NodeType::Sequence: {
      out->push_back('[');
      bool first = true;
      for (const YAML::Node& item : node) {
        if (!first) out->push_back(',');
        first = false;
        if (absl::Status st = AppendNode(item, depth + 1, budget, out); !st.ok()) return st;
      }
      out->push_back(']');
      return absl::OkStatus();
    }
    case YAML::NodeType::Map: {
      out->push_back('{');
      bool first = true;
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) return Location(kv.first.Mark(), "map keys must be scalars");
        if (!first) out->push_back(',');
        first = false;
        AppendJsonString(kv.first.Scalar(), out);
        out->push_back(':');
        if (absl::Status st = AppendNode(kv.second, depth + 1, budget, out); !st.ok()) return st;
      }
      out->push_back('}');
      return absl::OkStatus();
    }
  }
  return Location(node.Mark(), "unknown node type");
}

}  // namespace

absl::StatusOr<std::string> YamlToJson(std::string_view yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return Location(e.mark, e.msg);
  }
  std::string out;
  const std::size_t budget = std::max(kMinJsonBudget, kMaxExpansion * yaml.size());
  if (absl::Status st = AppendNode(root, 0, budget, &out); !st.ok()) return st;
  return out;
}

absl::Status ParseJsonOrYaml(std::string_view text, google::protobuf::Message* msg) {
  absl::string_view trimmed =
      absl::StripLeadingAsciiWhitespace(absl::string_view(text.data(), text.size()));
  std::string json;
  if (!trimmed.empty() && trimmed.front() == '{') {
    json = std::string(text);
  } else {
    absl::StatusOr<std::string> converted = YamlToJson(text);
    if (!converted.ok()) return converted.status();
    json = *std::move(converted);
    if (json == "null") json = "{}";  // an empty document is an empty message
    if (json.front() != '{') {
      return absl::InvalidArgumentError(absl::StrCat(
          "YAML: the document must be a map of the fields of ", msg->GetDescriptor()->full_name()));
    }
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto st = google::protobuf::util::JsonStringToMessage(json, msg, options);
  if (!st.ok()) {
    std::string message(st.message());
    // protobuf writes "(path): what"; a leading ": " means the root.
    if (absl::StartsWith(message, ": ")) message = message.substr(2);
    return absl::InvalidArgumentError(
        absl::StrCat(msg->GetDescriptor()->full_name(), ": ", message));
  }
  return absl::OkStatus();
}

}  // namespace resched::api
