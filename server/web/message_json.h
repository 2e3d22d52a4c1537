// A message in protobuf's JSON mapping, as google::protobuf::util::MessageToJsonString writes it
// (lowerCamelCase names, enums by name, 64-bit integers as strings, Timestamp and Duration as
// RFC 3339 text and "1.5s", fields at their default value left out), written from the message's
// reflection into nlohmann::json, for the web view's events. Debian's protobuf 3.21 prints through
// its type resolver, which rebuilds a google.protobuf.Type of every message type a message holds
// on every call: a small message is a few times cheaper here, a large one (a whole schedule)
// dearer (bench/message_json_bench.cc).
#pragma once

#include <google/protobuf/message.h>

#include <optional>
#include <string>

namespace resched::server::web {

// `message` as JSON; nullopt when it holds what this does not map (bytes, floats, well-known types
// other than Timestamp and Duration, a time out of the mapping's range): ask protobuf's printer.
// Numbers may be written with other digits than protobuf's (1.0 for 1), never another value.
std::optional<std::string> MessageJson(const google::protobuf::Message& message);

}  // namespace resched::server::web
