// The JSON of etcd's gateway, read and written for server/store/etcd_client.cc and
// etcd_watch.cc: bytes are base64, 64-bit numbers are strings, fields at their default are left
// out.
#pragma once

#include <cstdint>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "server/store/etcd_client.h"

namespace resched::server::etcd::json {

using Json = nlohmann::json;

inline std::string Encode(absl::string_view bytes) { return absl::Base64Escape(bytes); }

// The bytes of `object`'s field `name`; empty when it is left out.
inline std::string Decode(const Json& object, const char* name) {
  const auto it = object.find(name);
  std::string bytes;
  if (it != object.end() && it->is_string()) absl::Base64Unescape(it->get<std::string>(), &bytes);
  return bytes;
}

inline std::int64_t Number(const Json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end()) return 0;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  std::int64_t value = 0;
  if (it->is_string()) (void)absl::SimpleAtoi(it->get<std::string>(), &value);
  return value;
}

inline bool Flag(const Json& object, const char* name) {
  const auto it = object.find(name);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

inline KeyValue KeyValueOf(const Json& kv) {
  return KeyValue{.key = Decode(kv, "key"),
                  .value = Decode(kv, "value"),
                  .create_revision = Number(kv, "create_revision"),
                  .mod_revision = Number(kv, "mod_revision"),
                  .version = Number(kv, "version"),
                  .lease = Number(kv, "lease")};
}

// The store's revision in an answer's header.
inline std::int64_t RevisionOf(const Json& answer) {
  const auto header = answer.find("header");
  return header == answer.end() ? 0 : Number(*header, "revision");
}

}  // namespace resched::server::etcd::json
