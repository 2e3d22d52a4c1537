#include "server/store/sqlite_journal_store.h"

#include <sqlite3.h>
#include <zlib.h>

#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/store/wal_scan.h"

namespace resched::server {
namespace {

// Guards each record against bytes that changed on disk after SQLite accepted them (its own
// pages carry no checksum): covers the cluster name and the payload.
std::int64_t Checksum(std::string_view cluster, std::string_view payload) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(cluster.data()), cluster.size());
  crc = crc32(crc, reinterpret_cast<const Bytef*>(payload.data()), payload.size());
  return static_cast<std::int64_t>(crc);
}

// A prepared statement, finalized on every path.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

std::string_view Column(sqlite3_stmt* stmt, int i) {
  const void* data = sqlite3_column_blob(stmt, i);
  const int size = sqlite3_column_bytes(stmt, i);
  return {static_cast<const char*>(data), static_cast<std::size_t>(size)};
}

}  // namespace

SqliteJournalStore::SqliteJournalStore(std::string dir, std::unique_ptr<DataDirLock> lock)
    : dir_(std::move(dir)),
      name_(absl::StrCat("data directory ", dir_)),
      path_(absl::StrCat(dir_, "/journal.db")),
      lock_(std::move(lock)) {}

absl::StatusOr<std::unique_ptr<SqliteJournalStore>> SqliteJournalStore::Open(
    const std::string& dir, JournalOpenOptions options) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("data directory ", dir, " cannot be created: ", error.message()));
  }
  absl::StatusOr<std::unique_ptr<DataDirLock>> lock = DataDirLock::Acquire(dir);
  if (!lock.ok()) return lock.status();
  auto store = std::unique_ptr<SqliteJournalStore>(new SqliteJournalStore(dir, *std::move(lock)));
  if (absl::Status opened = store->OpenDatabase(options); !opened.ok()) return opened;
  store->opened_ = true;
  return store;
}

SqliteJournalStore::~SqliteJournalStore() {
  // A clean stop: the next open has nothing to recover. On a full disk the mark stays, and the
  // next open reads the log, which is still there, as after a crash.
  // A start refused (damage found) leaves the mark, so that the next start refuses it too.
  if (opened_) {
    (void)Exec(writer_, "INSERT OR REPLACE INTO meta(key, value) VALUES('open', 0)");
  }
  for (sqlite3_stmt* stmt : {begin_, insert_, commit_}) sqlite3_finalize(stmt);
  sqlite3_close(writer_);
  sqlite3_close(reader_);
}

absl::Status SqliteJournalStore::Error(sqlite3* db, std::string_view what) const {
  const int code = sqlite3_errcode(db);
  const std::string message =
      absl::StrFormat("data directory %s: %s %s: %s", dir_, what, path_, sqlite3_errmsg(db));
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) return absl::DataLossError(message);
  return absl::UnavailableError(message);
}

absl::Status SqliteJournalStore::Exec(sqlite3* db, const char* sql, std::string_view what) const {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error(db, what.empty() ? absl::StrCat("'", sql, "' failed on") : std::string(what));
  }
  return absl::OkStatus();
}

absl::Status SqliteJournalStore::OpenDatabase(const JournalOpenOptions& options) {
  // A clean stop checkpoints the write-ahead log and deletes it: a log still there means the
  // last run ended without closing, and SQLite recovers it at the first read below. What that
  // recovery will drop is read first, since SQLite drops damage and a torn write alike.
  const std::string wal_path = path_ + "-wal";
  std::error_code error;
  const bool wal_present = std::filesystem::exists(wal_path, error);
  absl::StatusOr<std::optional<WalScan>> wal = ScanWal(wal_path);
  if (!wal.ok()) {
    return absl::UnavailableError(
        absl::StrCat("data directory ", dir_, ": ", wal.status().message()));
  }
  std::string lost;
  if (*wal && (*wal)->loses_acknowledged_commits()) {
    const WalScan& scan = **wal;
    lost = scan.damaged_header
               ? absl::StrFormat("%s is damaged in its header: none of its %d bytes can be read",
                                 wal_path, scan.bytes)
               : absl::StrFormat(
                     "%s is damaged at byte %d (frame %d): the %d commits written after it "
                     "(%d frames, up to byte %d) were acknowledged and cannot be read",
                     wal_path, scan.first_dropped_offset, *scan.first_dropped_frame,
                     scan.dropped_commits, scan.dropped_frames, scan.bytes);
    if (!options.accept_data_loss) {
      return absl::DataLossError(absl::StrCat(
          "data directory ", dir_, ": ", lost,
          "; restore the directory from a backup, or start once with --accept-data-loss to go "
          "on without them"));
    }
  }
  constexpr int kFlags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  for (sqlite3** db : {&writer_, &reader_}) {
    if (sqlite3_open_v2(path_.c_str(), db, kFlags, nullptr) != SQLITE_OK) {
      absl::Status status = Error(*db, "cannot open");
      sqlite3_close(*db);
      *db = nullptr;
      return status;
    }
    // Readers never block the writer in WAL mode; this only covers a checkpoint in progress.
    sqlite3_busy_timeout(*db, 5000);
  }
  // WAL: a commit appends to the log and fsyncs it (synchronous=FULL), and a torn last frame
  // is ignored at the next open because its checksum fails.
  constexpr const char* kSchema = R"sql(
    PRAGMA journal_mode=WAL;
    PRAGMA synchronous=FULL;
    CREATE TABLE IF NOT EXISTS journal(lsn INTEGER PRIMARY KEY, cluster TEXT NOT NULL,
                                       payload BLOB NOT NULL, crc INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS journal_by_cluster ON journal(cluster, lsn);
    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value BLOB);
    CREATE TABLE IF NOT EXISTS snapshot(cluster TEXT PRIMARY KEY, lsn INTEGER NOT NULL,
                                        payload BLOB NOT NULL, crc INTEGER NOT NULL);
  )sql";
  if (absl::Status s = Exec(writer_, kSchema, "cannot set up the journal's tables in"); !s.ok()) {
    return s;
  }
  absl::StatusOr<bool> was_open = WasLeftOpen();
  if (!was_open.ok()) return was_open.status();
  if (*was_open && !wal_present) {
    lost = absl::StrFormat(
        "%s was not closed cleanly and %s, its write-ahead log, is missing (a copy of the "
        "database without its log?): the commits the log held are lost",
        path_, wal_path);
    if (!options.accept_data_loss) {
      return absl::DataLossError(absl::StrCat(
          "data directory ", dir_, ": ", lost,
          "; put the log back beside the database, or start once with --accept-data-loss to go "
          "on from the database alone"));
    }
  }
  // On a full or failing disk the journal starts refusing writes, as after a failed commit:
  // reads are served, and the first probe that commits marks the database open.
  std::string read_only;
  if (absl::Status marked = MarkOpen(); marked.ok()) {
    marked_open_ = true;
  } else if (marked.code() == absl::StatusCode::kUnavailable) {
    read_only = std::string(marked.message());
  } else {
    return marked;
  }
  // Compaction may have removed the last records (a cluster's, under its snapshot): LSNs go on
  // from the largest one still named anywhere, so none is ever given out twice.
  Statement last(reader_,
                 "SELECT MAX((SELECT COALESCE(MAX(lsn), 0) FROM journal), "
                 "(SELECT COALESCE(MAX(lsn), 0) FROM snapshot))");
  if (!last.ok() || sqlite3_step(last.get()) != SQLITE_ROW) {
    return Error(reader_, "cannot read");
  }
  last_lsn_ = sqlite3_column_int64(last.get(), 0);
  open_fault_ = read_only;
  if (*wal) {
    const WalScan& scan = **wal;
    recovery_note_ = absl::StrFormat(
        "data directory %s: the last run did not stop cleanly; %s held %d commits in %d frames, "
        "all kept (the last record is LSN %d)",
        dir_, wal_path, scan.kept_commits, scan.kept_frames, last_lsn_);
    if (scan.dropped_frames > 0 && !scan.loses_acknowledged_commits()) {
      absl::StrAppendFormat(&recovery_note_,
                            "; a torn last commit was dropped (%d frames from byte %d, its "
                            "commit frame never written, so never acknowledged)",
                            scan.dropped_frames, scan.first_dropped_offset);
    }
  } else if (*was_open) {
    recovery_note_ = absl::StrFormat(
        "data directory %s: the last run did not stop cleanly (the last record is LSN %d)", dir_,
        last_lsn_);
  }
  if (!lost.empty()) {
    lost_data_ = true;
    absl::StrAppend(&recovery_note_, "; DATA LOST, accepted by --accept-data-loss: ", lost,
                    "; every record after LSN ", last_lsn_, " of those commits is gone");
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> SqliteJournalStore::WasLeftOpen() {
  Statement read(writer_, "SELECT value FROM meta WHERE key = 'open'");
  if (!read.ok()) return Error(writer_, "cannot read");
  const int rc = sqlite3_step(read.get());
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Error(writer_, "cannot read");
  return rc == SQLITE_ROW && sqlite3_column_int64(read.get(), 0) == 1;
}

absl::Status SqliteJournalStore::MarkOpen() {
  if (absl::Status s = Exec(writer_, "INSERT OR REPLACE INTO meta(key, value) VALUES('open', 1)",
                            "cannot mark the journal open in");
      !s.ok()) {
    return s;
  }
  // The mark into the database file itself. Best effort: without it a copy of the file alone
  // is not known to be incomplete.
  (void)sqlite3_wal_checkpoint_v2(writer_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  return absl::OkStatus();
}

absl::Status SqliteJournalStore::Scan(const std::function<absl::Status(const StoredRecord&)>& fn,
                                      const std::string* cluster) const {
  MutexLock lock(&reader_mu_);
  Statement scan(reader_, cluster == nullptr
                              ? "SELECT lsn, cluster, payload, crc FROM journal ORDER BY lsn"
                              : "SELECT lsn, cluster, payload, crc FROM journal WHERE cluster = ? "
                                "ORDER BY lsn");
  if (!scan.ok()) return Error(reader_, "cannot read");
  if (cluster != nullptr) {
    sqlite3_bind_text(scan.get(), 1, cluster->data(), static_cast<int>(cluster->size()),
                      SQLITE_TRANSIENT);
  }
  std::int64_t last = 0;
  StoredRecord record;
  while (true) {
    const int rc = sqlite3_step(scan.get());
    if (rc == SQLITE_DONE) return absl::OkStatus();
    if (rc != SQLITE_ROW) {
      return Error(reader_, absl::StrCat("reading after LSN ", last, " failed in"));
    }
    record.lsn = sqlite3_column_int64(scan.get(), 0);
    record.cluster = std::string(Column(scan.get(), 1));
    record.payload = std::string(Column(scan.get(), 2));
    if (Checksum(record.cluster, record.payload) != sqlite3_column_int64(scan.get(), 3)) {
      return absl::DataLossError(absl::StrCat("data directory ", dir_, ": record LSN ", record.lsn,
                                              " in ", path_, " fails its checksum (corrupt)"));
    }
    last = record.lsn;
    if (absl::Status s = fn(record); !s.ok()) return s;
  }
}

absl::Status SqliteJournalStore::ScanSnapshots(
    const std::function<absl::Status(const StoredRecord&)>& fn, const std::string* cluster) const {
  MutexLock lock(&reader_mu_);
  Statement scan(reader_,
                 cluster == nullptr
                     ? "SELECT lsn, cluster, payload, crc FROM snapshot ORDER BY lsn"
                     : "SELECT lsn, cluster, payload, crc FROM snapshot WHERE cluster = ?");
  if (!scan.ok()) return Error(reader_, "cannot read");
  if (cluster != nullptr) {
    sqlite3_bind_text(scan.get(), 1, cluster->data(), static_cast<int>(cluster->size()),
                      SQLITE_TRANSIENT);
  }
  StoredRecord snapshot;
  while (true) {
    const int rc = sqlite3_step(scan.get());
    if (rc == SQLITE_DONE) return absl::OkStatus();
    if (rc != SQLITE_ROW) return Error(reader_, "reading the snapshots failed in");
    snapshot.lsn = sqlite3_column_int64(scan.get(), 0);
    snapshot.cluster = std::string(Column(scan.get(), 1));
    snapshot.payload = std::string(Column(scan.get(), 2));
    if (Checksum(snapshot.cluster, snapshot.payload) != sqlite3_column_int64(scan.get(), 3)) {
      return absl::DataLossError(
          absl::StrCat("data directory ", dir_, ": the snapshot of cluster '", snapshot.cluster,
                       "' (LSN ", snapshot.lsn, ") in ", path_, " fails its checksum (corrupt)"));
    }
    if (absl::Status s = fn(snapshot); !s.ok()) return s;
  }
}

absl::Status SqliteJournalStore::WriteTransaction(const std::function<absl::Status()>& body) {
  if (absl::Status s = Exec(writer_, "BEGIN IMMEDIATE"); !s.ok()) return s;
  absl::Status status = body();
  if (status.ok()) status = Exec(writer_, "COMMIT");
  if (!status.ok() && !sqlite3_get_autocommit(writer_)) (void)Exec(writer_, "ROLLBACK");
  return status;
}

namespace {

// Binds the cluster name and an LSN to a statement's parameters 1 and 2 and runs it.
bool RunForCluster(sqlite3* db, const char* sql, const std::string& cluster, std::int64_t lsn) {
  Statement stmt(db, sql);
  if (!stmt.ok()) return false;
  sqlite3_bind_text(stmt.get(), 1, cluster.data(), static_cast<int>(cluster.size()), SQLITE_STATIC);
  sqlite3_bind_int64(stmt.get(), 2, lsn);
  return sqlite3_step(stmt.get()) == SQLITE_DONE;
}

}  // namespace

absl::Status SqliteJournalStore::WriteSnapshot(const std::string& cluster, std::int64_t lsn,
                                               std::string_view payload) {
  return WriteTransaction([&] {
    Statement put(writer_,
                  "INSERT OR REPLACE INTO snapshot(cluster, lsn, payload, crc) VALUES(?, ?, ?, ?)");
    if (!put.ok()) return Error(writer_, "cannot write a snapshot to");
    sqlite3_bind_text(put.get(), 1, cluster.data(), static_cast<int>(cluster.size()),
                      SQLITE_STATIC);
    sqlite3_bind_int64(put.get(), 2, lsn);
    sqlite3_bind_blob(put.get(), 3, payload.data(), static_cast<int>(payload.size()),
                      SQLITE_STATIC);
    sqlite3_bind_int64(put.get(), 4, Checksum(cluster, payload));
    if (sqlite3_step(put.get()) != SQLITE_DONE) return Error(writer_, "cannot write a snapshot to");
    if (!RunForCluster(writer_, "DELETE FROM journal WHERE cluster = ? AND lsn <= ?", cluster,
                       lsn)) {
      return Error(writer_, "cannot compact");
    }
    return absl::OkStatus();
  });
}

absl::Status SqliteJournalStore::DropClusterBefore(const std::string& cluster, std::int64_t lsn) {
  return WriteTransaction([&] {
    if (!RunForCluster(writer_, "DELETE FROM journal WHERE cluster = ? AND lsn < ?", cluster,
                       lsn) ||
        !RunForCluster(writer_, "DELETE FROM snapshot WHERE cluster = ? AND lsn < ?", cluster,
                       lsn)) {
      return Error(writer_, "cannot compact");
    }
    return absl::OkStatus();
  });
}

absl::Status SqliteJournalStore::StepOnce(sqlite3_stmt* stmt, std::string_view what) const {
  absl::Status status = sqlite3_step(stmt) == SQLITE_DONE ? absl::OkStatus() : Error(writer_, what);
  sqlite3_reset(stmt);
  return status;
}

absl::Status SqliteJournalStore::Commit(const std::vector<StoredRecord>& batch) {
  if (begin_ == nullptr) {
    const std::pair<sqlite3_stmt**, const char*> statements[] = {
        {&begin_, "BEGIN IMMEDIATE"},
        {&insert_, "INSERT INTO journal(lsn, cluster, payload, crc) VALUES(?, ?, ?, ?)"},
        {&commit_, "COMMIT"}};
    for (const auto& [stmt, sql] : statements) {
      if (sqlite3_prepare_v3(writer_, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, nullptr) !=
          SQLITE_OK) {
        absl::Status error = Error(writer_, "cannot write");
        for (sqlite3_stmt** prepared : {&begin_, &insert_, &commit_}) {
          sqlite3_finalize(*prepared);
          *prepared = nullptr;
        }
        return error;
      }
    }
  }
  if (absl::Status s = StepOnce(begin_, "'BEGIN IMMEDIATE' failed on"); !s.ok()) return s;
  absl::Status status;
  for (const StoredRecord& p : batch) {
    sqlite3_bind_int64(insert_, 1, p.lsn);
    sqlite3_bind_text(insert_, 2, p.cluster.data(), static_cast<int>(p.cluster.size()),
                      SQLITE_STATIC);
    sqlite3_bind_blob(insert_, 3, p.payload.data(), static_cast<int>(p.payload.size()),
                      SQLITE_STATIC);
    sqlite3_bind_int64(insert_, 4, Checksum(p.cluster, p.payload));
    status = StepOnce(insert_, "cannot write");
    if (!status.ok()) break;
  }
  sqlite3_clear_bindings(insert_);  // the payloads' memory goes with the batch
  if (status.ok()) status = StepOnce(commit_, "'COMMIT' failed on");
  if (!status.ok() && !sqlite3_get_autocommit(writer_)) {
    (void)Exec(writer_, "ROLLBACK");
  }
  return status;
}

absl::Status SqliteJournalStore::Probe() {
  if (absl::Status s = Exec(writer_, "BEGIN IMMEDIATE"); !s.ok()) return s;
  absl::Status status =
      Exec(writer_, "INSERT OR REPLACE INTO meta(key, value) VALUES('probe', randomblob(64))");
  if (status.ok()) status = Exec(writer_, "COMMIT");
  if (!status.ok() && !sqlite3_get_autocommit(writer_)) (void)Exec(writer_, "ROLLBACK");
  // A database that opened read-only marks itself open with its first commit.
  if (status.ok() && !marked_open_) marked_open_ = MarkOpen().ok();
  return status;
}

absl::Status SqliteJournalStore::SetSizeLimitForTest(std::int64_t pages) {
  // The limit is per connection: it goes on the writer's, between two commits.
  const std::string sql =
      absl::StrCat("PRAGMA max_page_count=", pages > 0 ? pages : std::int64_t{1} << 30);
  return Exec(writer_, sql.c_str());
}

}  // namespace resched::server
