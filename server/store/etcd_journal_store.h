// A journal store in etcd (server/store/journal_store.h), so that the journal survives the loss
// of a machine: every record and snapshot is committed by a quorum of etcd's members before the
// journal calls it durable. docs/ha.md describes the design; the key layout is in
// etcd_journal_keys.h.
//
// The clusters are spread over the replicas that share the store. Every replica keeps an etcd
// lease alive, and under it the key `members/REPLICA` saying where it serves (Publish), so that
// the others can forward calls to it, and the owner key `owners/CLUSTER` of each cluster it
// serves (Acquire, Release). Every write is a transaction conditioned on the owner keys of the
// clusters it touches still being attached to this replica's lease: a replica that stops renewing
// (killed, paused, cut off) loses them when the lease expires, and from then on none of its
// writes to those clusters can land, whatever it believes: the fence is in etcd, not in the
// replica's clock. `clusters/CLUSTER` lists the clusters that exist, so that every replica can
// tell which ones to serve (ReadDirectory).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/base/mutex.h"
#include "server/store/etcd_client.h"
#include "server/store/journal_store.h"

namespace resched::server {

// Replicas and clusters as etcd holds them, read at one revision.
struct EtcdDirectory {
  std::map<std::string, std::string> members;  // replica -> where it serves
  std::map<std::string, std::string> owners;   // cluster -> the replica that serves it
  std::set<std::string> clusters;              // every cluster that exists
};

struct EtcdStoreOptions {
  etcd::ClientOptions client;
  // Every key the store writes starts with this; replicas sharing it share the journal.
  std::string prefix = "/resched";
  // This replica in the member and owner keys and in errors (empty: HOST:PID.RANDOM); no '/'.
  std::string replica_id;
  // How long the lease outlives the replica's last renewal: the longest a replica that died
  // keeps its clusters waiting. etcd rounds it up to whole seconds and to its minimum.
  absl::Duration lease_ttl = absl::Seconds(2);
  // Called, from the thread that found out, with the clusters whose owner keys this replica has
  // lost (its lease expired, or a write's condition failed). What it holds of them may be
  // stale: another replica may serve them now.
  std::function<void(const std::vector<std::string>&)> on_clusters_lost;
  // The largest value the store writes in one key, and the largest transaction (records, parts
  // and keys together), both below etcd's request limit (--max-request-bytes, 1.5 MiB by
  // default). A larger record or snapshot is written in parts, one transaction each, before
  // the transaction that makes it visible.
  std::int64_t part_bytes = 512 << 10;
  std::int64_t max_txn_bytes = 1 << 20;
  // Records per commit: etcd allows 128 operations (and as many conditions) per transaction by
  // default (--max-txn-ops).
  std::size_t max_txn_records = 120;
  // A write whose answer did not come (a timeout, a member lost, a leader election) is sent
  // again for this long: every write the store makes puts the same values under keys named by
  // LSN, or deletes, so sending it twice changes nothing, and the fence still holds. Past it,
  // the commit fails with UNAVAILABLE.
  absl::Duration retry_unanswered_for = absl::Seconds(3);
  // Compact etcd's history after a snapshot, up to the revision of the one before it, so that
  // the database stays bounded. Leave it to etcd (its --auto-compaction-*) with false.
  bool compact = true;
};

class EtcdJournalStore final : public JournalStore {
 public:
  // Connects and takes a lease, which it keeps alive from then on. UNAVAILABLE naming the
  // endpoints when etcd cannot be reached; INVALID_ARGUMENT for bad options.
  static absl::StatusOr<std::unique_ptr<EtcdJournalStore>> Connect(EtcdStoreOptions options);
  // Stops renewing and revokes the lease, so that the other replicas take its clusters at once.
  ~EtcdJournalStore() override;
  EtcdJournalStore(const EtcdJournalStore&) = delete;
  EtcdJournalStore& operator=(const EtcdJournalStore&) = delete;

  const std::string& name() const override { return name_; }
  const std::string& location() const override { return location_; }
  // Each cluster's records go on after its own last one (Journal::AdvancePast).
  std::int64_t last_lsn() const override { return 0; }
  const std::string& open_fault() const override { return no_fault_; }
  // etcd keeps no torn commits: a transaction landed whole or not at all.
  const std::string& recovery_note() const override { return no_fault_; }
  bool lost_data() const override { return false; }
  std::size_t max_batch_records() const override { return options_.max_txn_records; }
  std::int64_t max_batch_bytes() const override { return options_.max_txn_bytes; }

  absl::Status Commit(const std::vector<StoredRecord>& batch) override;
  // A fenced read of nothing: whether etcd takes writes again.
  absl::Status Probe() override;
  absl::Status WriteSnapshot(const std::string& cluster, std::int64_t lsn,
                             std::string_view payload) override;
  // Also removes the cluster from the directory.
  absl::Status DropClusterBefore(const std::string& cluster, std::int64_t lsn) override;
  absl::Status Scan(const std::function<absl::Status(const StoredRecord&)>& fn,
                    const std::string* cluster) const override;
  absl::Status ScanSnapshots(const std::function<absl::Status(const StoredRecord&)>& fn,
                             const std::string* cluster) const override;
  absl::Status ScanAfter(const std::function<absl::Status(const StoredRecord&)>& fn,
                         const std::string& cluster, std::int64_t after) const override;
  // Calls `changed` with the cluster of every record written from now on (by any replica), on a
  // thread of the watch's own, until the returned watch is destroyed; then with an empty name
  // if the watch ends (etcd unreachable for long, or compacted past it), when any cluster may
  // have changed unseen and a new watch is needed.
  std::unique_ptr<etcd::Watch> WatchRecords(std::function<void(const std::string&)> changed);

  // Puts this replica's member key, saying it serves at `address`, under its lease (and again
  // under each new lease).
  absl::Status Publish(const std::string& address);
  // The members, the owners and the clusters, read at one revision.
  absl::StatusOr<EtcdDirectory> ReadDirectory() const;
  // Whether the configuration's clusters were created once (MarkConfigured), so that a replica
  // starting creates them only into a journal that never had them all, and never again one that
  // was deleted since.
  absl::StatusOr<bool> Configured() const;
  absl::Status MarkConfigured();
  // Takes `cluster`'s owner key under the lease, and with `create` registers the cluster too;
  // FAILED_PRECONDITION naming the holder when another replica holds it, ALREADY_EXISTS when
  // `create` finds the cluster registered.
  absl::Status Acquire(const std::string& cluster, bool create);
  // Gives `cluster`'s owner key back, once its writes are durable (nothing when it is not ours).
  absl::Status Release(const std::string& cluster);
  // Removes `cluster` from the directory and gives its owner key back: a creation that failed
  // after Acquire, or a cluster deleted.
  absl::Status Forget(const std::string& cluster);
  // The clusters whose owner keys this replica holds.
  std::set<std::string> owned() const;
  // The LSN of `cluster`'s last record (0: none), such as the deletion an earlier cluster of its
  // name left.
  absl::StatusOr<std::int64_t> LastRecordLsn(const std::string& cluster) const;

  // The lease the member and owner keys are attached to now (tests revoke it).
  std::int64_t lease() const;
  const std::string& replica_id() const { return options_.replica_id; }

 private:
  EtcdJournalStore(EtcdStoreOptions options, std::unique_ptr<etcd::Client> client);
  // The member key, saying this replica serves at `address`, under `lease`.
  absl::Status PutMember(const std::string& address, std::int64_t lease);
  // A new lease (the first, or once the last one expired), and the member key under it.
  absl::Status RenewLease();
  // The transaction, sent again while its answer does not come (retry_unanswered_for); errors
  // name the store.
  absl::StatusOr<etcd::TxnResult> TxnUntilAnswered(const std::vector<etcd::Compare>& compares,
                                                   const std::vector<etcd::Op>& ops,
                                                   const std::vector<etcd::Op>& on_failure);
  // Runs `ops` in one transaction conditioned on the owner keys of `clusters`; UNAVAILABLE
  // naming the clusters whose keys are no longer ours (which it loses).
  absl::StatusOr<etcd::TxnResult> FencedTxn(const std::vector<etcd::Op>& ops,
                                            const std::vector<std::string>& clusters);
  // Forgets the `lost` clusters' owner keys and tells on_clusters_lost.
  void LoseClusters(std::vector<std::string> lost);
  // Writes `value` under `parts_prefix` in parts of at most part_bytes, one transaction each
  // (fenced by `cluster`'s key) but the ones `inline_parts` returns for the caller's transaction
  // (the last part, when it fits). Returns the number of parts.
  absl::StatusOr<std::int64_t> WriteParts(const std::string& cluster,
                                          const std::string& parts_prefix, std::string_view value,
                                          std::vector<etcd::Op>& inline_parts);
  // The keys from `key` to `range_end` at `revision`, page by page.
  absl::Status RangeAll(const std::string& key, const std::string& range_end, std::int64_t revision,
                        const std::function<absl::Status(etcd::KeyValue&)>& fn,
                        std::int64_t* read_revision) const;
  // The records from `key` to `range_end` at `revision` (0: the latest), a large one's parts
  // read at the same revision, appended to `records` in key order.
  absl::Status ReadRecords(const std::string& key, const std::string& range_end,
                           std::int64_t revision, std::vector<StoredRecord>& records) const;
  // The concatenated parts under `parts_prefix` at `revision`; DATA_LOSS when there are not
  // `parts` of them.
  absl::StatusOr<std::string> ReadParts(const std::string& parts_prefix, std::int64_t parts,
                                        std::int64_t revision) const;
  struct SnapshotHeader {
    std::string cluster;
    std::int64_t lsn = 0;
    std::int64_t parts = 0;
    std::string parts_key;
  };
  // A snapshot's header key and value; DATA_LOSS when the value does not parse.
  absl::StatusOr<SnapshotHeader> ParseSnapshotHeader(const etcd::KeyValue& kv) const;
  void KeepAliveLoop();

  const EtcdStoreOptions options_;
  const std::unique_ptr<etcd::Client> client_;
  const std::string name_;
  const std::string location_;
  const std::string no_fault_;
  // The etcd revision of the previous snapshot's transaction: the next one compacts up to it.
  std::int64_t compact_to_ = 0;
  // Part keys of snapshots get the lease and a counter, so that no two writes of the same LSN's
  // snapshot (by this replica or another) share keys.
  std::int64_t snapshot_writes_ = 0;

  mutable Mutex mu_;
  std::condition_variable renew_;  // stopping
  std::int64_t lease_ ABSL_GUARDED_BY(mu_) = 0;
  bool lease_expired_ ABSL_GUARDED_BY(mu_) = false;
  std::string address_ ABSL_GUARDED_BY(mu_);          // Publish's
  std::set<std::string> owned_ ABSL_GUARDED_BY(mu_);  // clusters whose owner keys are ours
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread keep_alive_;
};

}  // namespace resched::server
