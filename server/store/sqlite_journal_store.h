// A data directory's journal store: one SQLite database in WAL mode (DIR/journal.db;
// docs/durability.md says why SQLite), its records checksummed, the directory locked to one
// server. A commit is one transaction with one fsync.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/base/mutex.h"
#include "server/store/data_dir_lock.h"
#include "server/store/journal_store.h"

struct sqlite3;
struct sqlite3_stmt;

namespace resched::server {

struct JournalOpenOptions {
  // Start even when the write-ahead log is damaged before its last commit, or missing after an
  // unclean stop, from what can be read; the recovery note then says what was lost.
  bool accept_data_loss = false;
};

class SqliteJournalStore final : public JournalStore {
 public:
  // Creates DIR if needed, takes its lock (one server per directory) and opens the database.
  // FAILED_PRECONDITION when another server holds the directory; UNAVAILABLE when it cannot be
  // created or opened; DATA_LOSS when the database is corrupt, or when acknowledged commits
  // cannot be read (the write-ahead log damaged before its last commit, or missing after an
  // unclean stop) unless `options` accept that, naming the file and the position. A database
  // that cannot be written (a full disk) opens with an `open_fault`.
  static absl::StatusOr<std::unique_ptr<SqliteJournalStore>> Open(const std::string& dir,
                                                                  JournalOpenOptions options);
  // Marks the database closed cleanly (when it opened), so that the next open has nothing to
  // recover.
  ~SqliteJournalStore() override;
  SqliteJournalStore(const SqliteJournalStore&) = delete;
  SqliteJournalStore& operator=(const SqliteJournalStore&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& name() const override { return name_; }
  const std::string& location() const override { return path_; }
  std::int64_t last_lsn() const override { return last_lsn_; }
  const std::string& open_fault() const override { return open_fault_; }
  const std::string& recovery_note() const override { return recovery_note_; }
  bool lost_data() const override { return lost_data_; }

  absl::Status Commit(const std::vector<StoredRecord>& batch) override;
  // Also marks the database open once it can, when it opened read-only.
  absl::Status Probe() override;
  absl::Status WriteSnapshot(const std::string& cluster, std::int64_t lsn,
                             std::string_view payload) override;
  absl::Status DropClusterBefore(const std::string& cluster, std::int64_t lsn) override;
  absl::Status Scan(const std::function<absl::Status(const StoredRecord&)>& fn,
                    const std::string* cluster) const override;
  absl::Status ScanSnapshots(const std::function<absl::Status(const StoredRecord&)>& fn,
                             const std::string* cluster) const override;
  // SQLite's max_page_count: the database may grow to `pages` pages.
  absl::Status SetSizeLimitForTest(std::int64_t pages) override;

 private:
  SqliteJournalStore(std::string dir, std::unique_ptr<DataDirLock> lock);
  absl::Status OpenDatabase(const JournalOpenOptions& options);
  // Whether the previous run left the database marked open (MarkOpen, cleared by a clean close).
  absl::StatusOr<bool> WasLeftOpen();
  // Marks the database open and checkpoints the mark into the database file, so that a copy of
  // the file without its log shows it was not closed.
  absl::Status MarkOpen();
  // Steps a prepared statement that returns no rows and resets it; an error names `what`.
  absl::Status StepOnce(sqlite3_stmt* stmt, std::string_view what) const;
  // Runs `body` in one write transaction, rolled back on error.
  absl::Status WriteTransaction(const std::function<absl::Status()>& body);
  // Runs `sql`; an error names `what` was being done, or quotes `sql` when `what` is empty.
  absl::Status Exec(sqlite3* db, const char* sql, std::string_view what = {}) const;
  absl::Status Error(sqlite3* db, std::string_view what) const;

  const std::string dir_;
  const std::string name_;
  const std::string path_;
  std::unique_ptr<DataDirLock> lock_;
  std::int64_t last_lsn_ = 0;
  std::string open_fault_;
  std::string recovery_note_;
  bool lost_data_ = false;
  bool opened_ = false;       // Open succeeded: a stop then is a clean one
  bool marked_open_ = false;  // the writer's, once the database carries the open mark
  // The writer's connection: commits, probes, snapshots, the page limit. The journal calls them
  // from one thread at a time.
  sqlite3* writer_ = nullptr;
  // A commit's statements on writer_, prepared once (parsing them took a tenth of a commit's
  // CPU); null until the first commit.
  sqlite3_stmt* begin_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* commit_ = nullptr;
  sqlite3* reader_ = nullptr;  // the scans' connection, behind reader_mu_
  mutable Mutex reader_mu_;
};

}  // namespace resched::server
