// YAML/JSON input for API messages: the CLI's -f files and the server's config file.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace google::protobuf {
class Message;
}

namespace resched::api {

// Converts one YAML document to JSON text. Plain scalars become JSON numbers (integers and
// floats, .inf/.nan as the strings "Infinity"/"NaN" that protobuf's JSON accepts), booleans
// (true/false) or null (null, ~, empty); quoted scalars and everything else become strings.
// Maps and sequences are kept; map keys are always strings. Errors name the line and column.
absl::StatusOr<std::string> YamlToJson(std::string_view yaml);

// Parses `text` into `msg`: as JSON when its first non-blank character is '{', else as YAML
// (converted by YamlToJson). Uses protobuf's JSON mapping (field names in snake_case or
// lowerCamelCase, durations as "90s", timestamps as RFC 3339); unknown fields are errors.
// The error message says what is wrong and where (line and column, or the field path).
absl::Status ParseJsonOrYaml(std::string_view text, google::protobuf::Message* msg);

}  // namespace resched::api
