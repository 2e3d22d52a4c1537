// Helpers shared by the application's calls (server/app/*_calls.cc): request ids, idempotent
// replays, optional timestamps.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/resched/convert.h"
#include "server/app/call_context.h"
#include "server/app/cluster_state.h"
#include "server/base/status_details.h"

namespace resched::server {

inline constexpr size_t kMaxRequestId = 128;

inline absl::Status CheckRequestId(absl::string_view request_id) {
  if (request_id.size() > kMaxRequestId) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "request_id must have at most %d characters, got %d", kMaxRequestId, request_id.size()));
  }
  return absl::OkStatus();
}

// Where a client's request id keeps its answer: under the caller's tenant when calls are
// authenticated, so that two tenants choosing the same id never get each other's answer.
inline std::string ReplyKey(const CallContext& call, const std::string& request_id) {
  if (request_id.empty() || call.principal() == nullptr) return request_id;
  return absl::StrCat(call.principal()->tenant, "/", request_id);
}

// A retry of an applied request answers ALREADY_EXISTS with the first answer; the same id for
// another method is a client bug.
template <class Response>
std::optional<absl::Status> Replay(const CallContext& call, const ReplyCache& replies,
                                   const std::string& request_id, const char* method) {
  if (request_id.empty()) return std::nullopt;
  const ReplyCache::Entry* entry = replies.Find(ReplyKey(call, request_id));
  if (entry == nullptr) return std::nullopt;
  if (entry->method != method) {
    return absl::InvalidArgumentError(
        absl::StrFormat("request_id '%s' was already used for %s", request_id, entry->method));
  }
  Response first;
  first.ParseFromString(entry->reply);
  return Replayed(request_id, first);
}

// The first answer when `request_id` was answered before (looked up under the lock, nothing
// changed): a slow planner checks this before it plans, not only at its commit.
template <class Response>
std::optional<absl::Status> AnsweredBefore(CallContext& call, ClusterState& state,
                                           const std::string& request_id, const char* method) {
  if (request_id.empty()) return std::nullopt;
  std::optional<absl::Status> replay;
  const absl::Status found = state.Run(call, [&](ClusterState::Txn& txn) {
    replay = Replay<Response>(call, txn.replies, request_id, method);
  });
  if (!found.ok()) return found;
  return replay;
}

inline absl::StatusOr<Time> TimeOr(bool has, const google::protobuf::Timestamp& ts,
                                   const char* field, Time fallback) {
  if (!has) return fallback;
  return FromProto(ts, field);
}

// Runs the change `apply` under the cluster's writer lock, unless `request_id` was answered
// before (then the first answer is replayed), remembers the answer of a success and journals
// the change (ClusterState::Change records what it did to the plan).
template <class Response>
absl::Status RunIdempotent(CallContext& call, ClusterState& state, const std::string& request_id,
                           const char* method, Response* response,
                           const std::function<absl::Status(ClusterState::Txn&)>& apply) {
  absl::Status result;
  absl::Status done =
      state.Change(call, [&](ClusterState::Txn& txn) -> std::optional<pb::JournalRecord> {
        if (auto replay = Replay<Response>(call, txn.replies, request_id, method)) {
          result = *replay;
          return std::nullopt;
        }
        if (auto status = apply(txn); !status.ok()) {
          result = status;
          return std::nullopt;
        }
        pb::JournalRecord record;
        record.set_method(method);
        if (!request_id.empty()) {
          record.set_request_id(ReplyKey(call, request_id));
          record.set_reply(response->SerializeAsString());
          txn.replies.Remember(record.request_id(), method, record.reply());
        }
        return record;
      });
  return done.ok() ? result : done;
}

}  // namespace resched::server
