#include "server/store/etcd_journal_store.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "server/base/log.h"
#include "server/store/etcd_journal_keys.h"

namespace resched::server {
namespace {

namespace keys = etcd_keys;
using etcd::Compare;
using etcd::Op;

// Keys per page of a scan: records are small, and a page must stay far below what one answer
// may carry.
constexpr std::int64_t kScanPage = 128;
// Between two tries of a write whose answer did not come.
constexpr absl::Duration kRetryPause = absl::Milliseconds(50);
// Compaction between the pages of a scan makes etcd refuse the later pages: the scan starts
// again at the newest revision this many times.
constexpr int kScanAttempts = 3;

// HOST:PID.RANDOM: containers that share the host's name (a host network) may also share a PID.
std::string DefaultReplicaId() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device random;
  return absl::StrFormat("%s:%d.%08x", host[0] != '\0' ? host : "replica", getpid(), random());
}

absl::Status Annotate(const absl::Status& status, absl::string_view name) {
  return absl::Status(status.code(), absl::StrCat(name, ": ", status.message()));
}

absl::Status CheckOptions(const EtcdStoreOptions& options) {
  if (options.prefix.empty() || options.prefix.front() != '/' || options.prefix.back() == '/') {
    return absl::InvalidArgumentError(absl::StrCat("etcd prefix: '", options.prefix,
                                                   "' must start with '/' and not end with one"));
  }
  if (options.lease_ttl < absl::Seconds(1) || options.lease_ttl > absl::Minutes(10)) {
    return absl::InvalidArgumentError("etcd lease TTL: must be from 1 s to 10 min");
  }
  if (options.part_bytes < 1024 || options.max_txn_bytes < options.part_bytes) {
    return absl::InvalidArgumentError(
        "etcd part bytes: must be at least 1024 and at most the transaction bytes");
  }
  if (options.replica_id.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("replica id: '", options.replica_id, "' must not hold a '/'"));
  }
  if (options.max_txn_records == 0) {
    return absl::InvalidArgumentError("etcd transaction records: must be at least 1");
  }
  return absl::OkStatus();
}

}  // namespace

EtcdJournalStore::EtcdJournalStore(EtcdStoreOptions options, std::unique_ptr<etcd::Client> client)
    : options_(std::move(options)),
      client_(std::move(client)),
      name_(absl::StrCat("etcd store ", options_.prefix, " at ",
                         absl::StrJoin(options_.client.endpoints, ","))),
      location_(absl::StrCat(absl::StrJoin(options_.client.endpoints, ","), options_.prefix)) {}

absl::StatusOr<std::unique_ptr<EtcdJournalStore>> EtcdJournalStore::Connect(
    EtcdStoreOptions options) {
  if (absl::Status checked = CheckOptions(options); !checked.ok()) return checked;
  if (options.replica_id.empty()) options.replica_id = DefaultReplicaId();
  absl::StatusOr<std::unique_ptr<etcd::Client>> client = etcd::Client::Create(options.client);
  if (!client.ok()) return client.status();
  auto store = std::unique_ptr<EtcdJournalStore>(
      new EtcdJournalStore(std::move(options), *std::move(client)));
  if (absl::Status leased = store->RenewLease(); !leased.ok()) return leased;
  store->keep_alive_ = std::thread([raw = store.get()] { raw->KeepAliveLoop(); });
  return store;
}

absl::Status EtcdJournalStore::Publish(const std::string& address) {
  std::int64_t lease = 0;
  {
    MutexLock lock(&mu_);
    address_ = address;
    lease = lease_;
  }
  return PutMember(address, lease);
}

absl::Status EtcdJournalStore::PutMember(const std::string& address, std::int64_t lease) {
  absl::StatusOr<std::int64_t> put =
      client_->Put(keys::Member(options_.prefix, options_.replica_id), address, lease);
  return put.ok() ? absl::OkStatus() : Annotate(put.status(), name_);
}

EtcdJournalStore::~EtcdJournalStore() {
  std::int64_t lease = 0;
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    if (!lease_expired_) lease = lease_;
  }
  renew_.notify_all();
  if (keep_alive_.joinable()) keep_alive_.join();
  // A replica waiting for the writer key takes it now rather than after the TTL.
  if (lease != 0) (void)client_->RevokeLease(lease);
}

std::int64_t EtcdJournalStore::lease() const {
  MutexLock lock(&mu_);
  return lease_;
}

absl::Status EtcdJournalStore::RenewLease() {
  absl::StatusOr<etcd::Lease> lease = client_->GrantLease(options_.lease_ttl);
  if (!lease.ok()) return Annotate(lease.status(), name_);
  std::string address;
  {
    MutexLock lock(&mu_);
    address = address_;
  }
  if (!address.empty()) {
    if (absl::Status put = PutMember(address, lease->id); !put.ok()) {
      (void)client_->RevokeLease(lease->id);
      return put;
    }
  }
  MutexLock lock(&mu_);
  lease_ = lease->id;
  lease_expired_ = false;
  return absl::OkStatus();
}

void EtcdJournalStore::LoseClusters(std::vector<std::string> lost) {
  {
    MutexLock lock(&mu_);
    std::vector<std::string> owned_lost;
    for (std::string& cluster : lost) {
      if (owned_.erase(cluster) > 0) owned_lost.push_back(std::move(cluster));
    }
    lost = std::move(owned_lost);
  }
  if (lost.empty()) return;
  Log(LogLevel::kWarning, "clusters_lost",
      absl::StrCat(options_.replica_id, " no longer serves cluster(s) ", absl::StrJoin(lost, ", ")),
      {{"store", name_}});
  if (options_.on_clusters_lost) options_.on_clusters_lost(lost);
}

absl::StatusOr<etcd::TxnResult> EtcdJournalStore::TxnUntilAnswered(
    const std::vector<Compare>& compares, const std::vector<Op>& ops,
    const std::vector<Op>& on_failure) {
  const absl::Time give_up = absl::Now() + options_.retry_unanswered_for;
  absl::StatusOr<etcd::TxnResult> txn = client_->Txn(compares, ops, on_failure);
  while (absl::IsUnavailable(txn.status()) && absl::Now() < give_up) {
    absl::SleepFor(kRetryPause);
    txn = client_->Txn(compares, ops, on_failure);
  }
  if (!txn.ok()) return Annotate(txn.status(), name_);
  return txn;
}

absl::StatusOr<bool> EtcdJournalStore::Configured() const {
  absl::StatusOr<std::optional<etcd::KeyValue>> key =
      client_->Get(keys::Configured(options_.prefix));
  if (!key.ok()) return Annotate(key.status(), name_);
  return key->has_value();
}

absl::Status EtcdJournalStore::MarkConfigured() {
  absl::StatusOr<std::int64_t> put = client_->Put(keys::Configured(options_.prefix), "");
  return put.ok() ? absl::OkStatus() : Annotate(put.status(), name_);
}

absl::Status EtcdJournalStore::Acquire(const std::string& cluster, bool create) {
  std::int64_t lease = 0;
  {
    MutexLock lock(&mu_);
    if (lease_expired_) {
      return absl::UnavailableError(
          absl::StrCat(name_, ": ", options_.replica_id, "'s lease expired; it is taking another"));
    }
    lease = lease_;
  }
  const std::string owner = keys::Owner(options_.prefix, cluster);
  const std::string entry = keys::ClusterEntry(options_.prefix, cluster);
  std::vector<Compare> compares = {Compare::Missing(owner)};
  std::vector<Op> ops = {Op::Put(owner, options_.replica_id, lease)};
  if (create) {
    compares.push_back(Compare::Missing(entry));
    ops.push_back(Op::Put(entry, ""));
  }
  absl::StatusOr<etcd::TxnResult> txn =
      TxnUntilAnswered(compares, ops, {Op::Get(owner), Op::Get(entry)});
  if (!txn.ok()) return txn.status();
  if (!txn->succeeded) {
    const std::vector<etcd::KeyValue>& holder = txn->ranges.front().kvs;
    // Ours already: a try whose answer was lost, sent again.
    const bool ours = !holder.empty() && holder.front().lease == lease;
    if (!ours && create && holder.empty()) {
      return absl::AlreadyExistsError(absl::StrCat("cluster '", cluster, "' already exists"));
    }
    if (!ours) {
      return absl::FailedPreconditionError(absl::StrCat(name_, ": replica ", holder.front().value,
                                                        " serves cluster '", cluster, "'"));
    }
  }
  MutexLock lock(&mu_);
  owned_.insert(cluster);
  return absl::OkStatus();
}

absl::Status EtcdJournalStore::Release(const std::string& cluster) {
  std::int64_t lease = 0;
  {
    MutexLock lock(&mu_);
    if (owned_.erase(cluster) == 0) return absl::OkStatus();
    lease = lease_;
  }
  const std::string owner = keys::Owner(options_.prefix, cluster);
  absl::StatusOr<etcd::TxnResult> txn =
      client_->Txn({Compare::LeaseIs(owner, lease)}, {Op::Delete(owner)}, {});
  return txn.ok() ? absl::OkStatus() : Annotate(txn.status(), name_);
}

absl::Status EtcdJournalStore::Forget(const std::string& cluster) {
  absl::StatusOr<etcd::TxnResult> txn =
      FencedTxn({Op::Delete(keys::ClusterEntry(options_.prefix, cluster)),
                 Op::Delete(keys::Owner(options_.prefix, cluster))},
                {cluster});
  MutexLock lock(&mu_);
  owned_.erase(cluster);
  return txn.ok() ? absl::OkStatus() : txn.status();
}

std::set<std::string> EtcdJournalStore::owned() const {
  MutexLock lock(&mu_);
  return owned_;
}

absl::StatusOr<std::int64_t> EtcdJournalStore::LastRecordLsn(const std::string& cluster) const {
  const std::string records = keys::Records(options_.prefix, cluster);
  std::int64_t last = 0;
  absl::Status read = RangeAll(
      records, etcd::PrefixEnd(records), 0,
      [&](etcd::KeyValue& kv) {
        if (std::optional<keys::RecordKey> parsed = keys::ParseRecordKey(options_.prefix, kv.key)) {
          last = std::max(last, parsed->lsn);
        }
        return absl::OkStatus();
      },
      nullptr);
  if (!read.ok()) return read;
  return last;
}

absl::StatusOr<EtcdDirectory> EtcdJournalStore::ReadDirectory() const {
  EtcdDirectory directory;
  std::int64_t revision = 0;
  const auto after = [](const std::string& key, const std::string& prefix) {
    return key.substr(prefix.size());
  };
  const std::string members = keys::Members(options_.prefix);
  const std::string owners = keys::Owners(options_.prefix);
  const std::string clusters = keys::ClusterEntries(options_.prefix);
  absl::Status read = RangeAll(
      members, etcd::PrefixEnd(members), 0,
      [&](etcd::KeyValue& kv) {
        directory.members[after(kv.key, members)] = std::move(kv.value);
        return absl::OkStatus();
      },
      &revision);
  if (read.ok()) {
    read = RangeAll(
        owners, etcd::PrefixEnd(owners), revision,
        [&](etcd::KeyValue& kv) {
          directory.owners[after(kv.key, owners)] = std::move(kv.value);
          return absl::OkStatus();
        },
        nullptr);
  }
  if (read.ok()) {
    read = RangeAll(
        clusters, etcd::PrefixEnd(clusters), revision,
        [&](etcd::KeyValue& kv) {
          directory.clusters.insert(after(kv.key, clusters));
          return absl::OkStatus();
        },
        nullptr);
  }
  if (!read.ok()) return read;
  return directory;
}

absl::StatusOr<std::int64_t> EtcdJournalStore::WriteParts(const std::string& cluster,
                                                          const std::string& parts_prefix,
                                                          std::string_view value,
                                                          std::vector<Op>& ops) {
  const auto part_bytes = static_cast<std::size_t>(options_.part_bytes);
  const std::size_t parts = std::max<std::size_t>(1, (value.size() + part_bytes - 1) / part_bytes);
  for (std::size_t part = 0; part < parts; ++part) {
    Op put = Op::Put(parts_prefix + keys::Part(static_cast<std::int64_t>(part)),
                     std::string(value.substr(part * part_bytes, part_bytes)));
    if (parts == 1) {
      ops.push_back(std::move(put));
    } else if (absl::StatusOr<etcd::TxnResult> written = FencedTxn({put}, {cluster});
               !written.ok()) {
      return written.status();
    }
  }
  return static_cast<std::int64_t>(parts);
}

absl::Status EtcdJournalStore::Commit(const std::vector<StoredRecord>& batch) {
  if (batch.empty()) return absl::OkStatus();
  std::vector<Op> ops;
  ops.reserve(batch.size() + 1);
  std::vector<std::string> clusters;
  for (const StoredRecord& record : batch) {
    clusters.push_back(record.cluster);
    const std::string key = keys::Record(options_.prefix, record.cluster, record.lsn);
    if (static_cast<std::int64_t>(record.payload.size()) <= options_.part_bytes) {
      ops.push_back(Op::Put(key, record.payload));
      continue;
    }
    // Its parts first, each a transaction; the record appears with the commit's transaction.
    std::vector<Op> unused;
    absl::StatusOr<std::int64_t> parts =
        WriteParts(record.cluster, keys::RecordParts(options_.prefix, record.cluster, record.lsn),
                   record.payload, unused);
    if (!parts.ok()) return parts.status();
    ops.push_back(Op::Put(absl::StrCat(key, keys::kPartsSuffix), absl::StrCat(*parts)));
  }
  absl::StatusOr<etcd::TxnResult> txn = FencedTxn(ops, clusters);
  return txn.ok() ? absl::OkStatus() : txn.status();
}

absl::Status EtcdJournalStore::WriteSnapshot(const std::string& cluster, std::int64_t lsn,
                                             std::string_view payload) {
  std::int64_t lease = 0;
  {
    MutexLock lock(&mu_);
    lease = lease_;
  }
  const std::string all_parts = keys::AllSnapshotParts(options_.prefix, cluster);
  const std::string parts_key =
      absl::StrCat(all_parts, keys::Lsn(lsn), "-", lease, "-", ++snapshot_writes_, "/");
  std::vector<Op> ops;
  absl::StatusOr<std::int64_t> parts = WriteParts(cluster, parts_key, payload, ops);
  if (!parts.ok()) return parts.status();
  const nlohmann::json header = {{"lsn", lsn}, {"parts", *parts}, {"parts_key", parts_key}};
  ops.push_back(Op::Put(keys::Snapshot(options_.prefix, cluster), header.dump()));
  // Every other snapshot part of the cluster: the previous snapshot's, and any that a writer
  // which died while writing parts left behind.
  ops.push_back(Op::DeleteRange(all_parts, parts_key));
  ops.push_back(Op::DeleteRange(etcd::PrefixEnd(parts_key), etcd::PrefixEnd(all_parts)));
  ops.push_back(Op::DeleteRange(keys::Records(options_.prefix, cluster),
                                keys::Record(options_.prefix, cluster, lsn + 1)));
  ops.push_back(Op::DeleteRange(keys::AllRecordParts(options_.prefix, cluster),
                                keys::RecordParts(options_.prefix, cluster, lsn + 1)));
  absl::StatusOr<etcd::TxnResult> txn = FencedTxn(ops, {cluster});
  if (!txn.ok()) return txn.status();
  if (options_.compact) {
    // Up to the previous snapshot, so that a reader that started before this one still reads.
    if (compact_to_ > 0) {
      if (absl::Status compacted = client_->Compact(compact_to_);
          !compacted.ok() && !absl::IsOutOfRange(compacted)) {
        Log(LogLevel::kWarning, "etcd_compaction_failed", compacted.message(), {{"store", name_}});
      }
    }
    compact_to_ = txn->revision;
  }
  return absl::OkStatus();
}

absl::Status EtcdJournalStore::DropClusterBefore(const std::string& cluster, std::int64_t lsn) {
  std::vector<Op> ops = {Op::DeleteRange(keys::Records(options_.prefix, cluster),
                                         keys::Record(options_.prefix, cluster, lsn)),
                         Op::DeleteRange(keys::AllRecordParts(options_.prefix, cluster),
                                         keys::RecordParts(options_.prefix, cluster, lsn)),
                         Op::Delete(keys::Snapshot(options_.prefix, cluster)),
                         Op::DeletePrefix(keys::AllSnapshotParts(options_.prefix, cluster))};
  // The deleted cluster leaves the replicas' directory with its last records.
  ops.push_back(Op::Delete(keys::ClusterEntry(options_.prefix, cluster)));
  absl::StatusOr<etcd::TxnResult> txn = FencedTxn(ops, {cluster});
  return txn.ok() ? absl::OkStatus() : txn.status();
}

absl::Status EtcdJournalStore::RangeAll(const std::string& key, const std::string& range_end,
                                        std::int64_t revision,
                                        const std::function<absl::Status(etcd::KeyValue&)>& fn,
                                        std::int64_t* read_revision) const {
  std::string from = key;
  std::int64_t at = revision;
  while (true) {
    absl::StatusOr<etcd::RangeResult> page = client_->Range(from, range_end, kScanPage, at);
    if (!page.ok()) return Annotate(page.status(), name_);
    if (at == 0) {
      at = page->revision;
      if (read_revision != nullptr) *read_revision = at;
    }
    for (etcd::KeyValue& kv : page->kvs) {
      if (absl::Status s = fn(kv); !s.ok()) return s;
    }
    if (!page->more || page->kvs.empty()) return absl::OkStatus();
    from = page->kvs.back().key + '\0';
  }
}

absl::StatusOr<std::string> EtcdJournalStore::ReadParts(const std::string& parts_prefix,
                                                        std::int64_t parts,
                                                        std::int64_t revision) const {
  std::string value;
  std::int64_t found = 0;
  absl::Status read = RangeAll(
      etcd::PrefixStart(parts_prefix), etcd::PrefixEnd(parts_prefix), revision,
      [&](etcd::KeyValue& kv) {
        if (kv.key != parts_prefix + keys::Part(found)) {
          return absl::DataLossError(absl::StrCat(name_, ": part ", found, " of ", parts_prefix,
                                                  " is missing (found ", kv.key, ")"));
        }
        ++found;
        value += kv.value;
        return absl::OkStatus();
      },
      nullptr);
  if (!read.ok()) return read;
  if (found != parts) {
    return absl::DataLossError(
        absl::StrCat(name_, ": ", parts_prefix, " has ", found, " of its ", parts, " parts"));
  }
  return value;
}

absl::Status EtcdJournalStore::Scan(const std::function<absl::Status(const StoredRecord&)>& fn,
                                    const std::string* cluster) const {
  const std::string start = keys::Records(options_.prefix, cluster != nullptr ? *cluster : "");
  std::vector<StoredRecord> records;
  absl::Status read;
  for (int attempt = 0; attempt < kScanAttempts; ++attempt) {
    records.clear();
    read = ReadRecords(start, etcd::PrefixEnd(start), 0, records);
    if (!absl::IsOutOfRange(read)) break;
  }
  if (!read.ok()) return read;
  // Key order is LSN order within a cluster; across clusters, LSN order is restored here.
  if (cluster == nullptr) {
    std::stable_sort(records.begin(), records.end(),
                     [](const StoredRecord& a, const StoredRecord& b) { return a.lsn < b.lsn; });
  }
  for (const StoredRecord& record : records) {
    if (absl::Status s = fn(record); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status EtcdJournalStore::ReadRecords(const std::string& key, const std::string& range_end,
                                           std::int64_t revision,
                                           std::vector<StoredRecord>& records) const {
  std::int64_t at = revision;
  return RangeAll(
      key, range_end, revision,
      [&](etcd::KeyValue& kv) -> absl::Status {
        std::optional<keys::RecordKey> parsed = keys::ParseRecordKey(options_.prefix, kv.key);
        if (!parsed) {
          return absl::DataLossError(absl::StrCat(name_, ": key ", kv.key, " is not a record's"));
        }
        StoredRecord record{.lsn = parsed->lsn, .cluster = parsed->cluster, .payload = {}};
        if (!parsed->parts) {
          record.payload = std::move(kv.value);
        } else {
          std::int64_t parts = 0;
          if (!absl::SimpleAtoi(kv.value, &parts)) {
            return absl::DataLossError(absl::StrCat(name_, ": ", kv.key, " is not a number"));
          }
          absl::StatusOr<std::string> payload = ReadParts(
              keys::RecordParts(options_.prefix, parsed->cluster, parsed->lsn), parts, at);
          if (!payload.ok()) return payload.status();
          record.payload = *std::move(payload);
        }
        records.push_back(std::move(record));
        return absl::OkStatus();
      },
      revision == 0 ? &at : nullptr);
}

absl::Status EtcdJournalStore::ScanAfter(const std::function<absl::Status(const StoredRecord&)>& fn,
                                         const std::string& cluster, std::int64_t after) const {
  // The snapshot's header and the records after `after` at one revision: a snapshot written
  // between the two reads would otherwise drop records unseen.
  absl::StatusOr<etcd::RangeResult> header =
      client_->Range(keys::Snapshot(options_.prefix, cluster), "", 1);
  if (!header.ok()) return Annotate(header.status(), name_);
  if (!header->kvs.empty()) {
    absl::StatusOr<SnapshotHeader> parsed = ParseSnapshotHeader(header->kvs.front());
    if (!parsed.ok()) return parsed.status();
    if (parsed->lsn > after) {
      return absl::OutOfRangeError(absl::StrCat(name_, ": the records of cluster '", cluster,
                                                "' up to LSN ", parsed->lsn,
                                                " are in its snapshot now"));
    }
  }
  std::vector<StoredRecord> records;
  const std::string records_of = keys::Records(options_.prefix, cluster);
  if (absl::Status read = ReadRecords(keys::Record(options_.prefix, cluster, after + 1),
                                      etcd::PrefixEnd(records_of), header->revision, records);
      !read.ok()) {
    return read;
  }
  for (const StoredRecord& record : records) {
    if (absl::Status s = fn(record); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::unique_ptr<etcd::Watch> EtcdJournalStore::WatchRecords(
    std::function<void(const std::string&)> changed) {
  const std::string records = keys::Records(options_.prefix);
  // From the revision after the store's present one: etcd registers a watch "from now" only
  // once its stream is up, and a record written before that would go unheard. (The key read is
  // the prefix alone, which holds no record: only the revision is wanted.)
  std::int64_t start_revision = 0;
  if (absl::StatusOr<etcd::RangeResult> now = client_->Range(records, "", 1); now.ok()) {
    start_revision = now->revision + 1;
  }
  return client_->StartWatch(records, etcd::PrefixEnd(records), start_revision,
                             [this, changed = std::move(changed)](const etcd::WatchBatch& batch) {
                               std::set<std::string> clusters;
                               for (const etcd::WatchEvent& event : batch.events) {
                                 if (event.type != etcd::WatchEvent::Type::kPut)
                                   continue;  // compactions
                                 if (std::optional<keys::RecordKey> key =
                                         keys::ParseRecordKey(options_.prefix, event.kv.key)) {
                                   clusters.insert(key->cluster);
                                 }
                               }
                               for (const std::string& cluster : clusters) changed(cluster);
                               if (!batch.ended.ok()) changed(std::string());
                             });
}

absl::StatusOr<EtcdJournalStore::SnapshotHeader> EtcdJournalStore::ParseSnapshotHeader(
    const etcd::KeyValue& kv) const {
  SnapshotHeader header;
  header.cluster = kv.key.substr(keys::Snapshots(options_.prefix).size());
  const nlohmann::json json = nlohmann::json::parse(kv.value, nullptr, false);
  if (!json.is_object() || !json.contains("lsn") || !json["lsn"].is_number_integer() ||
      !json.contains("parts") || !json["parts"].is_number_integer() ||
      !json.contains("parts_key") || !json["parts_key"].is_string()) {
    return absl::DataLossError(absl::StrCat(name_, ": the snapshot header of cluster '",
                                            header.cluster, "' does not parse"));
  }
  header.lsn = json["lsn"].get<std::int64_t>();
  header.parts = json["parts"].get<std::int64_t>();
  header.parts_key = json["parts_key"].get<std::string>();
  return header;
}

absl::Status EtcdJournalStore::ScanSnapshots(
    const std::function<absl::Status(const StoredRecord&)>& fn, const std::string* cluster) const {
  const std::string snapshots = keys::Snapshots(options_.prefix);
  const std::string start = cluster != nullptr ? snapshots + *cluster : snapshots;
  const std::string end = cluster != nullptr ? std::string() : etcd::PrefixEnd(snapshots);
  // The headers first (small), then each snapshot's parts, one snapshot in memory at a time.
  std::vector<SnapshotHeader> headers;
  std::int64_t revision = 0;
  absl::Status read = RangeAll(
      start, end, 0,
      [&](etcd::KeyValue& kv) -> absl::Status {
        absl::StatusOr<SnapshotHeader> header = ParseSnapshotHeader(kv);
        if (!header.ok()) return header.status();
        headers.push_back(*std::move(header));
        return absl::OkStatus();
      },
      &revision);
  if (!read.ok()) return read;
  std::stable_sort(headers.begin(), headers.end(),
                   [](const SnapshotHeader& a, const SnapshotHeader& b) { return a.lsn < b.lsn; });
  for (SnapshotHeader& header : headers) {
    absl::StatusOr<std::string> payload = ReadParts(header.parts_key, header.parts, revision);
    for (int attempt = 1; absl::IsOutOfRange(payload.status()) && attempt < kScanAttempts;
         ++attempt) {
      // Compacted past the scan's revision: a newer snapshot replaced this one; read that.
      absl::StatusOr<etcd::RangeResult> latest = client_->Range(snapshots + header.cluster, "", 1);
      if (!latest.ok()) return Annotate(latest.status(), name_);
      if (latest->kvs.empty()) break;
      absl::StatusOr<SnapshotHeader> newer = ParseSnapshotHeader(latest->kvs.front());
      if (!newer.ok()) return newer.status();
      header = *std::move(newer);
      payload = ReadParts(header.parts_key, header.parts, latest->revision);
    }
    if (!payload.ok()) return payload.status();
    StoredRecord snapshot{.lsn = header.lsn, .cluster = header.cluster, .payload = {}};
    snapshot.payload = *std::move(payload);
    if (absl::Status s = fn(snapshot); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<etcd::TxnResult> EtcdJournalStore::FencedTxn(
    const std::vector<Op>& ops, const std::vector<std::string>& clusters) {
  std::int64_t lease = 0;
  {
    MutexLock lock(&mu_);
    lease = lease_;
  }
  std::vector<std::string> fenced = clusters;
  std::sort(fenced.begin(), fenced.end());
  fenced.erase(std::unique(fenced.begin(), fenced.end()), fenced.end());
  std::vector<Compare> compares;
  std::vector<Op> holders;
  for (const std::string& cluster : fenced) {
    compares.push_back(Compare::LeaseIs(keys::Owner(options_.prefix, cluster), lease));
    holders.push_back(Op::Get(keys::Owner(options_.prefix, cluster)));
  }
  absl::StatusOr<etcd::TxnResult> txn = TxnUntilAnswered(compares, ops, holders);
  if (!txn.ok() || txn->succeeded) return txn;
  std::vector<std::string> lost;
  std::vector<std::string> why;
  for (std::size_t i = 0; i < fenced.size() && i < txn->ranges.size(); ++i) {
    const std::vector<etcd::KeyValue>& holder = txn->ranges[i].kvs;
    if (!holder.empty() && holder.front().lease == lease) continue;
    lost.push_back(fenced[i]);
    why.push_back(holder.empty() ? absl::StrCat("'", fenced[i], "' (no one serves it)")
                                 : absl::StrCat("'", fenced[i], "' (replica ", holder.front().value,
                                                " serves it now)"));
  }
  LoseClusters(lost);
  return absl::UnavailableError(
      absl::StrCat(name_, ": this replica (", options_.replica_id, ") no longer serves cluster ",
                   absl::StrJoin(why, ", "), "; the change was not saved"));
}

absl::Status EtcdJournalStore::Probe() {
  absl::StatusOr<etcd::TxnResult> fenced = FencedTxn({}, {});
  return fenced.ok() ? absl::OkStatus() : fenced.status();
}

void EtcdJournalStore::KeepAliveLoop() {
  const auto interval =
      std::max(absl::ToChronoMilliseconds(options_.lease_ttl / 3), std::chrono::milliseconds(100));
  while (true) {
    std::int64_t lease = 0;
    bool expired = false;
    {
      MutexLock lock(&mu_);
      mu_.WaitFor(renew_, interval);
      if (stopping_) return;
      lease = lease_;
      expired = lease_expired_;
    }
    std::vector<std::string> lost;
    if (!expired) {
      absl::StatusOr<std::int64_t> renewed = client_->KeepAlive(lease);
      if (!absl::IsNotFound(renewed.status())) continue;
      MutexLock lock(&mu_);
      if (lease_ != lease) continue;
      lease_expired_ = true;
      // The owner keys went with the lease: another replica may serve those clusters now.
      lost.assign(owned_.begin(), owned_.end());
      Log(LogLevel::kWarning, "member_lease_lost",
          absl::StrCat(options_.replica_id, "'s lease expired: taking a new one"),
          {{"store", name_}});
    }
    LoseClusters(std::move(lost));
    (void)RenewLease();
  }
}

}  // namespace resched::server
