// The durable journal: every accepted change as one record, kept by a store
// (server/store/journal_store.h): a data directory's SQLite database (Journal::Open,
// server/store/sqlite_journal_store.h) or another store (Journal::Start).
//
// Writers append under their cluster's lock, which only queues the record and gives it a log
// sequence number (LSN); a background thread commits what is queued as one write of the store
// (group commit), so clusters never wait on each other's locks and concurrent writers share an
// fsync. A writer answers its client only once its LSN is durable: WaitDurable blocks for it,
// WhenDurable calls back, so that a call waiting for its commit holds no thread.
//
// A failed commit (disk full, I/O error, unwritable file) fails its whole batch and every record
// queued after it, and the journal then refuses appends with UNAVAILABLE naming the store until
// a probe succeeds. A store that cannot be written when it opens starts so. Callers find out
// which of their records failed with Failed() and reload those clusters from what is durable, so
// nothing is half-applied.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/base/mutex.h"
#include "server/store/journal_store.h"
#include "server/store/sqlite_journal_store.h"

namespace resched::server {

class Journal {
 public:
  // The journal of data directory DIR (SqliteJournalStore::Open says what it refuses).
  static absl::StatusOr<std::unique_ptr<Journal>> Open(const std::string& dir,
                                                       JournalOpenOptions options = {});
  // The journal of `store`, its LSNs going on after the store's last.
  static std::unique_ptr<Journal> Start(std::unique_ptr<JournalStore> store);
  // Commits what is queued, then stops the background thread.
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // What errors and logs call the store ("data directory DIR"), and where its records are.
  const std::string& name() const { return store_->name(); }
  const std::string& location() const { return store_->location(); }
  // After an unclean stop (crash, kill, power loss): one line saying what the open found (for a
  // data directory, in the write-ahead log: the commits kept, a torn last commit dropped (its
  // commit frame never reached the disk, so it was never acknowledged), and, when accepted, the
  // acknowledged commits that were lost). Empty after a clean stop.
  const std::string& recovery_note() const { return store_->recovery_note(); }
  // True when the open went on past acknowledged commits it could not read
  // (JournalOpenOptions::accept_data_loss); the recovery note says which.
  bool lost_data() const { return store_->lost_data(); }

  // Calls `fn` for every record in LSN order (for one cluster only when `cluster` is given).
  // DATA_LOSS naming the store and the LSN when a record fails its checksum; `fn`'s error stops
  // the scan and is returned.
  absl::Status Scan(const std::function<absl::Status(const StoredRecord&)>& fn,
                    const std::string* cluster = nullptr) const;
  // JournalStore::ScanAfter.
  absl::Status ScanAfter(const std::function<absl::Status(const StoredRecord&)>& fn,
                         const std::string& cluster, std::int64_t after) const;

  // Snapshots: one per cluster, the cluster's whole state after the record `lsn`, written by
  // WriteSnapshot in one transaction with the removal of the cluster's records up to `lsn`
  // (compaction). Start-up loads each snapshot and replays only the later records.
  //
  // Calls `fn` for every snapshot in LSN order (one cluster's only, when given); DATA_LOSS
  // naming the store and the cluster when one fails its checksum.
  absl::Status ScanSnapshots(const std::function<absl::Status(const StoredRecord&)>& fn,
                             const std::string* cluster = nullptr) const;
  // Replaces `cluster`'s snapshot and drops its records up to `lsn`, which must be durable;
  // UNAVAILABLE naming the store when that cannot be written (nothing changes then).
  absl::Status WriteSnapshot(const std::string& cluster, std::int64_t lsn,
                             std::string_view payload);
  // Drops a deleted cluster's snapshot and records before `lsn` (its deletion's record, which
  // stays, so that a retried DeleteCluster still finds its answer).
  absl::Status DropClusterBefore(const std::string& cluster, std::int64_t lsn);

  // OK, or UNAVAILABLE naming the store while commits fail.
  absl::Status CheckWritable() const;
  // Queues a record and returns its LSN; never waits for I/O.
  std::int64_t Append(std::string cluster, std::string payload);
  // Waits until `lsn` is durable (OK) or its commit failed (UNAVAILABLE naming the store).
  absl::Status WaitDurable(std::int64_t lsn);
  // Calls `done` with what WaitDurable would answer once `lsn` is durable or its commit failed:
  // at once on the calling thread when it already is, else right after the commit, through the
  // callback executor (SetCallbackExecutor) or on the journal's thread, where `done` must not
  // block (it delays the next commit).
  void WhenDurable(std::int64_t lsn, absl::AnyInvocable<void(absl::Status) &&> done);
  // True once the commit of `lsn` has failed.
  bool Failed(std::int64_t lsn) const;
  // True once `lsn` is durable (WaitDurable would answer OK at once).
  bool Durable(std::int64_t lsn) const;
  // The last LSN given out (0 before any).
  std::int64_t last_lsn() const;
  // Gives the next records LSNs above `lsn`: a cluster taken over from another replica goes on
  // after its own last record (LSNs need only grow within a cluster).
  void AdvancePast(std::int64_t lsn);

  // Caps the store's size (a data directory's database at `pages` pages, SQLite's
  // max_page_count), so that tests can fill the "disk"; 0 lifts the cap.
  absl::Status SetSizeLimitForTest(std::int64_t pages);
  // How many transactions committed, for the group-commit test and metrics.
  std::int64_t commits() const;
  // Hears of every committed transaction: its time (fsync included) and record count. Set
  // before the first Append.
  void SetCommitObserver(std::function<void(double seconds, std::size_t records)> observe);
  // Runs the WhenDurable callbacks that a commit settles through `post` (a thread pool's), a few
  // per task, so that the journal's thread goes straight on to the next commit; without it
  // they run on the journal's thread. Set before the first Append.
  void SetCallbackExecutor(std::function<void(std::function<void()>)> post);
  // Hears when commits start failing (the error) and when a probe succeeds again (OK), from the
  // journal's thread. Set before the first Append.
  void SetHealthObserver(std::function<void(const absl::Status& status)> observe);

 private:
  struct Waiter {
    std::int64_t lsn;
    absl::AnyInvocable<void(absl::Status) &&> done;
  };

  explicit Journal(std::unique_ptr<JournalStore> store);
  // WaitDurable's answer for `lsn` once it is durable or failed; nullopt while it is neither.
  std::optional<absl::Status> OutcomeLocked(std::int64_t lsn) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Calls the waiters whose LSN has an outcome now (all of them, with UNAVAILABLE for those
  // without, when `stopped`).
  void CallWaiters(bool stopped);
  void CommitLoop();
  // Moves the longest prefix of the queue that the store takes in one commit into `batch`.
  void TakeBatchLocked(std::vector<StoredRecord>& batch) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs a write of the store (a snapshot, a compaction) when commits work, between two commits.
  absl::Status WriteToStore(const std::function<absl::Status(JournalStore&)>& write);

  // The store's writes (commits, probes, snapshots, the size limit) go one at a time, under
  // writer_mu_; its scans run beside them.
  const std::unique_ptr<JournalStore> store_;
  Mutex writer_mu_;

  mutable Mutex mu_;
  std::condition_variable work_;     // records queued, or stopping
  std::condition_variable durable_;  // a batch committed or failed
  std::vector<StoredRecord> queue_ ABSL_GUARDED_BY(mu_);
  std::int64_t next_lsn_ ABSL_GUARDED_BY(mu_) = 1;
  std::int64_t durable_lsn_ ABSL_GUARDED_BY(mu_) = 0;
  // LSNs whose commit failed, as inclusive ranges, oldest first.
  std::vector<std::pair<std::int64_t, std::int64_t>> failed_ ABSL_GUARDED_BY(mu_);
  // Set by a failed commit, cleared by a successful probe.
  std::string fault_ ABSL_GUARDED_BY(mu_);
  std::vector<Waiter> waiters_ ABSL_GUARDED_BY(mu_);
  std::int64_t commits_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void(double, std::size_t)> observe_commit_ ABSL_GUARDED_BY(mu_);
  std::function<void(const absl::Status&)> observe_health_ ABSL_GUARDED_BY(mu_);
  std::function<void(std::function<void()>)> post_callbacks_ ABSL_GUARDED_BY(mu_);
  std::thread committer_;
};

}  // namespace resched::server
