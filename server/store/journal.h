// The durable journal of a data directory: every accepted change as one record, in one SQLite
// database in WAL mode (DIR/journal.db; docs/durability.md says why SQLite).
//
// Writers append under their cluster's lock, which only queues the record and gives it a log
// sequence number (LSN); a background thread commits what is queued as one transaction with one
// fsync (group commit), so clusters never wait on each other's locks and concurrent writers
// share an fsync. A writer answers its client only once its LSN is on disk: WaitDurable blocks
// for it, WhenDurable calls back, so that a call waiting for its commit holds no thread.
//
// A failed commit (disk full, I/O error, unwritable file) fails its whole batch and every record
// queued after it, and the journal then refuses appends with UNAVAILABLE naming the directory
// until a probe transaction succeeds. A journal that cannot write when it opens starts so. Callers
// find out which of their records failed with Failed() and reload those clusters from what is
// durable, so nothing is half-applied.
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
#include "server/store/data_dir_lock.h"

struct sqlite3;
struct sqlite3_stmt;

namespace resched::server {

struct JournalOpenOptions {
  // Start even when the write-ahead log is damaged before its last commit, or missing after an
  // unclean stop, from what can be read; the recovery note then says what was lost.
  bool accept_data_loss = false;
};

struct StoredRecord {
  std::int64_t lsn = 0;
  std::string cluster;
  std::string payload;
};

class Journal {
 public:
  // Creates DIR if needed, takes its lock (one server per directory) and opens the database.
  // FAILED_PRECONDITION when another server holds the directory; UNAVAILABLE when it cannot be
  // created or opened; DATA_LOSS when the database is corrupt, or when acknowledged commits
  // cannot be read (the write-ahead log damaged before its last commit, or missing after an
  // unclean stop) unless `options` accept that, naming the file and the position.
  static absl::StatusOr<std::unique_ptr<Journal>> Open(const std::string& dir,
                                                       JournalOpenOptions options = {});
  // Commits what is queued, then stops the background thread.
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& path() const { return path_; }
  // After an unclean stop (crash, kill, power loss): one line saying what the open found in the
  // write-ahead log: the commits kept, a torn last commit dropped (its commit frame never
  // reached the disk, so it was never acknowledged), and, when accepted, the acknowledged
  // commits that were lost. Empty after a clean stop.
  const std::string& recovery_note() const { return recovery_note_; }
  // True when the open went on past acknowledged commits it could not read
  // (JournalOpenOptions::accept_data_loss); the recovery note says which.
  bool lost_data() const { return lost_data_; }

  // Calls `fn` for every record in LSN order (for one cluster only when `cluster` is given).
  // DATA_LOSS naming the file and the LSN when a record fails its checksum; `fn`'s error stops
  // the scan and is returned.
  absl::Status Scan(const std::function<absl::Status(const StoredRecord&)>& fn,
                    const std::string* cluster = nullptr) const;

  // Snapshots: one per cluster, the cluster's whole state after the record `lsn`, written by
  // WriteSnapshot in one transaction with the removal of the cluster's records up to `lsn`
  // (compaction). Start-up loads each snapshot and replays only the later records.
  //
  // Calls `fn` for every snapshot in LSN order (one cluster's only, when given); DATA_LOSS
  // naming the file and the cluster when one fails its checksum.
  absl::Status ScanSnapshots(const std::function<absl::Status(const StoredRecord&)>& fn,
                             const std::string* cluster = nullptr) const;
  // Replaces `cluster`'s snapshot and drops its records up to `lsn`, which must be durable;
  // UNAVAILABLE naming the directory when that cannot be written (nothing changes then).
  absl::Status WriteSnapshot(const std::string& cluster, std::int64_t lsn,
                             std::string_view payload);
  // Drops a deleted cluster's snapshot and records before `lsn` (its deletion's record, which
  // stays, so that a retried DeleteCluster still finds its answer).
  absl::Status DropClusterBefore(const std::string& cluster, std::int64_t lsn);

  // OK, or UNAVAILABLE naming the directory while commits fail.
  absl::Status CheckWritable() const;
  // Queues a record and returns its LSN; never waits for I/O.
  std::int64_t Append(std::string cluster, std::string payload);
  // Waits until `lsn` is durable (OK) or its commit failed (UNAVAILABLE naming the directory).
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

  // Caps the database at `pages` pages (SQLite's max_page_count), so that tests can fill the
  // "disk"; 0 lifts the cap.
  absl::Status SetPageLimitForTest(std::int64_t pages);
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
  struct Pending {
    std::int64_t lsn;
    std::string cluster;
    std::string payload;
  };

  struct Waiter {
    std::int64_t lsn;
    absl::AnyInvocable<void(absl::Status) &&> done;
  };

  Journal(std::string dir, std::unique_ptr<DataDirLock> lock);
  // WaitDurable's answer for `lsn` once it is durable or failed; nullopt while it is neither.
  std::optional<absl::Status> OutcomeLocked(std::int64_t lsn) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Calls the waiters whose LSN has an outcome now (all of them, with UNAVAILABLE for those
  // without, when `stopped`).
  void CallWaiters(bool stopped);
  absl::Status OpenDatabase(const JournalOpenOptions& options);
  // Whether the previous run left the database marked open (MarkOpen, cleared by a clean close).
  absl::StatusOr<bool> WasLeftOpen();
  // Marks the database open and checkpoints the mark into the database file, so that a copy of
  // the file without its log shows it was not closed.
  absl::Status MarkOpen();
  void CommitLoop();
  absl::Status CommitBatch(const std::vector<Pending>& batch);
  // Steps a prepared statement that returns no rows and resets it; an error names `what`.
  absl::Status StepOnce(sqlite3_stmt* stmt, std::string_view what) const;
  absl::Status Probe();
  // Runs `body` in one write transaction on the writer connection, rolled back on error.
  absl::Status WriteTransaction(const std::function<absl::Status()>& body);
  // Runs `sql`; an error names `what` was being done, or quotes `sql` when `what` is empty.
  absl::Status Exec(sqlite3* db, const char* sql, std::string_view what = {}) const;
  absl::Status Error(sqlite3* db, std::string_view what) const;

  const std::string dir_;
  const std::string path_;
  std::unique_ptr<DataDirLock> lock_;
  std::string recovery_note_;
  bool opened_ = false;  // Open succeeded: a stop then is a clean one
  bool lost_data_ = false;
  bool marked_open_ = false;   // the commit thread's once it runs
  Mutex writer_mu_;            // the commit thread holds it while it uses writer_
  sqlite3* writer_ = nullptr;  // commits and probes; the pragma of SetPageLimitForTest
  // A commit's statements on writer_, prepared once (parsing them took a tenth of a commit's
  // CPU); null until the first commit.
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  sqlite3* reader_ = nullptr;  // Scan's connection, behind reader_mu_
  mutable Mutex reader_mu_;

  mutable Mutex mu_;
  std::condition_variable work_;     // records queued, or stopping
  std::condition_variable durable_;  // a batch committed or failed
  std::vector<Pending> queue_ ABSL_GUARDED_BY(mu_);
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
