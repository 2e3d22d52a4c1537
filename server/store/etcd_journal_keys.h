// Where the etcd journal store (server/store/etcd_journal_store.h) keeps what, under its prefix P.
// LSNs are written as 20 digits, so that key order is LSN order.
//
//   P/configured                    empty: the configuration's clusters were created once
//   P/members/REPLICA               where a replica serves (HOST:PORT), attached to its lease
//   P/clusters/CLUSTER              every cluster that exists (empty)
//   P/owners/CLUSTER                the replica that serves the cluster, attached to its lease
//   P/records/CLUSTER/LSN           a record's payload
//   P/records/CLUSTER/LSN.parts     a large record: the number of its parts, which are
//   P/parts/CLUSTER/LSN/PART          its payload in order
//   P/snapshots/CLUSTER             a snapshot's header: {"lsn", "parts", "parts_key"}
//   P/snapshot-parts/CLUSTER/GEN/PART  its payload in order (GEN: LSN-LEASE-COUNT)
//
// Cluster names hold no '/' (core/model/cluster.h), so P/records/CLUSTER/ is one cluster's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace resched::server::etcd_keys {

inline std::string Lsn(std::int64_t lsn) { return absl::StrFormat("%020d", lsn); }
inline std::string Part(std::int64_t part) { return absl::StrFormat("%06d", part); }

inline std::string Configured(absl::string_view prefix) {
  return absl::StrCat(prefix, "/configured");
}
inline std::string Members(absl::string_view prefix) { return absl::StrCat(prefix, "/members/"); }
inline std::string Member(absl::string_view prefix, absl::string_view replica) {
  return absl::StrCat(Members(prefix), replica);
}
inline std::string ClusterEntries(absl::string_view prefix) {
  return absl::StrCat(prefix, "/clusters/");
}
inline std::string ClusterEntry(absl::string_view prefix, absl::string_view cluster) {
  return absl::StrCat(ClusterEntries(prefix), cluster);
}
inline std::string Owners(absl::string_view prefix) { return absl::StrCat(prefix, "/owners/"); }
inline std::string Owner(absl::string_view prefix, absl::string_view cluster) {
  return absl::StrCat(Owners(prefix), cluster);
}

// Every cluster's records (an empty `cluster`), or one cluster's.
inline std::string Records(absl::string_view prefix, absl::string_view cluster = {}) {
  if (cluster.empty()) return absl::StrCat(prefix, "/records/");
  return absl::StrCat(prefix, "/records/", cluster, "/");
}
inline std::string Record(absl::string_view prefix, absl::string_view cluster, std::int64_t lsn) {
  return absl::StrCat(Records(prefix, cluster), Lsn(lsn));
}
inline constexpr absl::string_view kPartsSuffix = ".parts";
inline std::string RecordParts(absl::string_view prefix, absl::string_view cluster,
                               std::int64_t lsn) {
  return absl::StrCat(prefix, "/parts/", cluster, "/", Lsn(lsn), "/");
}
inline std::string AllRecordParts(absl::string_view prefix, absl::string_view cluster) {
  return absl::StrCat(prefix, "/parts/", cluster, "/");
}

inline std::string Snapshots(absl::string_view prefix) {
  return absl::StrCat(prefix, "/snapshots/");
}
inline std::string Snapshot(absl::string_view prefix, absl::string_view cluster) {
  return absl::StrCat(Snapshots(prefix), cluster);
}
inline std::string AllSnapshotParts(absl::string_view prefix, absl::string_view cluster) {
  return absl::StrCat(prefix, "/snapshot-parts/", cluster, "/");
}

// A record key's cluster and LSN, and whether it is a large record's part count; nullopt for a
// key that is not a record's.
struct RecordKey {
  std::string cluster;
  std::int64_t lsn = 0;
  bool parts = false;
};
inline std::optional<RecordKey> ParseRecordKey(absl::string_view prefix, absl::string_view key) {
  const std::string records = Records(prefix);
  if (key.substr(0, records.size()) != records) return std::nullopt;
  key.remove_prefix(records.size());
  const std::size_t slash = key.find('/');
  if (slash == absl::string_view::npos) return std::nullopt;
  RecordKey parsed;
  parsed.cluster = std::string(key.substr(0, slash));
  absl::string_view lsn = key.substr(slash + 1);
  if (lsn.size() > kPartsSuffix.size() &&
      lsn.substr(lsn.size() - kPartsSuffix.size()) == kPartsSuffix) {
    parsed.parts = true;
    lsn.remove_suffix(kPartsSuffix.size());
  }
  if (!absl::SimpleAtoi(lsn, &parsed.lsn) || parsed.lsn <= 0) return std::nullopt;
  return parsed;
}

}  // namespace resched::server::etcd_keys
