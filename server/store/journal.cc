#include "server/store/journal.h"

#include <sqlite3.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/store/wal_scan.h"

namespace resched::server {
namespace {

constexpr auto kProbeInterval = std::chrono::milliseconds(200);

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

Journal::Journal(std::string dir, std::unique_ptr<DataDirLock> lock)
    : dir_(std::move(dir)), path_(absl::StrCat(dir_, "/journal.db")), lock_(std::move(lock)) {}

absl::StatusOr<std::unique_ptr<Journal>> Journal::Open(const std::string& dir,
                                                       JournalOpenOptions options) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("data directory ", dir, " cannot be created: ", error.message()));
  }
  absl::StatusOr<std::unique_ptr<DataDirLock>> lock = DataDirLock::Acquire(dir);
  if (!lock.ok()) return lock.status();
  auto journal = std::unique_ptr<Journal>(new Journal(dir, *std::move(lock)));
  if (absl::Status opened = journal->OpenDatabase(options); !opened.ok()) return opened;
  journal->opened_ = true;
  journal->committer_ = std::thread([raw = journal.get()] { raw->CommitLoop(); });
  return journal;
}

absl::Status Journal::Error(sqlite3* db, std::string_view what) const {
  const int code = sqlite3_errcode(db);
  const std::string message =
      absl::StrFormat("data directory %s: %s %s: %s", dir_, what, path_, sqlite3_errmsg(db));
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) return absl::DataLossError(message);
  return absl::UnavailableError(message);
}

absl::Status Journal::Exec(sqlite3* db, const char* sql, std::string_view what) const {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Error(db, what.empty() ? absl::StrCat("'", sql, "' failed on") : std::string(what));
  }
  return absl::OkStatus();
}

absl::Status Journal::OpenDatabase(const JournalOpenOptions& options) {
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
  std::int64_t last_lsn = 0;
  {
    MutexLock lock(&mu_);
    durable_lsn_ = sqlite3_column_int64(last.get(), 0);
    next_lsn_ = durable_lsn_ + 1;
    last_lsn = durable_lsn_;
    fault_ = read_only;
  }
  if (*wal) {
    const WalScan& scan = **wal;
    recovery_note_ = absl::StrFormat(
        "data directory %s: the last run did not stop cleanly; %s held %d commits in %d frames, "
        "all kept (the last record is LSN %d)",
        dir_, wal_path, scan.kept_commits, scan.kept_frames, last_lsn);
    if (scan.dropped_frames > 0 && !scan.loses_acknowledged_commits()) {
      absl::StrAppendFormat(&recovery_note_,
                            "; a torn last commit was dropped (%d frames from byte %d, its "
                            "commit frame never written, so never acknowledged)",
                            scan.dropped_frames, scan.first_dropped_offset);
    }
  } else if (*was_open) {
    recovery_note_ = absl::StrFormat(
        "data directory %s: the last run did not stop cleanly (the last record is LSN %d)", dir_,
        last_lsn);
  }
  if (!lost.empty()) {
    lost_data_ = true;
    absl::StrAppend(&recovery_note_, "; DATA LOST, accepted by --accept-data-loss: ", lost,
                    "; every record after LSN ", last_lsn, " of those commits is gone");
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Journal::WasLeftOpen() {
  Statement read(writer_, "SELECT value FROM meta WHERE key = 'open'");
  if (!read.ok()) return Error(writer_, "cannot read");
  const int rc = sqlite3_step(read.get());
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return Error(writer_, "cannot read");
  return rc == SQLITE_ROW && sqlite3_column_int64(read.get(), 0) == 1;
}

absl::Status Journal::MarkOpen() {
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

Journal::~Journal() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  work_.notify_all();
  if (committer_.joinable()) committer_.join();
  CallWaiters(true);
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

absl::Status Journal::Scan(const std::function<absl::Status(const StoredRecord&)>& fn,
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

absl::Status Journal::ScanSnapshots(const std::function<absl::Status(const StoredRecord&)>& fn,
                                    const std::string* cluster) const {
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

absl::Status Journal::WriteTransaction(const std::function<absl::Status()>& body) {
  if (absl::Status s = CheckWritable(); !s.ok()) return s;
  MutexLock writer(&writer_mu_);
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

absl::Status Journal::WriteSnapshot(const std::string& cluster, std::int64_t lsn,
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

absl::Status Journal::DropClusterBefore(const std::string& cluster, std::int64_t lsn) {
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

absl::Status Journal::CheckWritable() const {
  MutexLock lock(&mu_);
  if (fault_.empty()) return absl::OkStatus();
  return absl::UnavailableError(fault_);
}

std::int64_t Journal::Append(std::string cluster, std::string payload) {
  std::int64_t lsn = 0;
  {
    MutexLock lock(&mu_);
    lsn = next_lsn_++;
    if (!fault_.empty()) {
      // Nothing is written while commits fail: the record fails at once.
      if (!failed_.empty() && failed_.back().second == lsn - 1) {
        failed_.back().second = lsn;
      } else {
        failed_.emplace_back(lsn, lsn);
      }
      return lsn;
    }
    queue_.push_back(Pending{lsn, std::move(cluster), std::move(payload)});
  }
  work_.notify_one();
  return lsn;
}

bool Journal::Failed(std::int64_t lsn) const {
  MutexLock lock(&mu_);
  for (const auto& [first, last] : failed_) {
    if (lsn >= first && lsn <= last) return true;
  }
  return false;
}

std::optional<absl::Status> Journal::OutcomeLocked(std::int64_t lsn) const {
  for (const auto& [first, last] : failed_) {
    if (lsn >= first && lsn <= last) {
      return absl::UnavailableError(
          fault_.empty() ? absl::StrCat("data directory ", dir_, ": the change was not saved")
                         : fault_);
    }
  }
  if (durable_lsn_ >= lsn) return absl::OkStatus();
  return std::nullopt;
}

absl::Status Journal::WaitDurable(std::int64_t lsn) {
  MutexLock lock(&mu_);
  while (true) {
    if (std::optional<absl::Status> outcome = OutcomeLocked(lsn)) return *std::move(outcome);
    mu_.Wait(durable_);
  }
}

void Journal::WhenDurable(std::int64_t lsn, absl::AnyInvocable<void(absl::Status) &&> done) {
  std::optional<absl::Status> outcome;
  {
    MutexLock lock(&mu_);
    outcome = OutcomeLocked(lsn);
    if (!outcome) {
      waiters_.push_back(Waiter{lsn, std::move(done)});
      return;
    }
  }
  std::move(done)(*std::move(outcome));
}

void Journal::CallWaiters(bool stopped) {
  // A callback finishes a call (about 20 us): a task of this many keeps the workers' wake-ups
  // few while a large commit's callbacks still spread over several workers.
  constexpr std::size_t kCallbacksPerTask = 8;
  using Ready = std::vector<std::pair<Waiter, absl::Status>>;
  Ready ready;
  std::function<void(std::function<void()>)> post;
  {
    MutexLock lock(&mu_);
    auto waiting = waiters_.begin();
    for (Waiter& waiter : waiters_) {
      std::optional<absl::Status> outcome = OutcomeLocked(waiter.lsn);
      if (!outcome && stopped) {
        outcome = absl::UnavailableError(absl::StrCat(
            "data directory ", dir_, ": the server stopped before the change was saved"));
      }
      if (outcome) {
        ready.emplace_back(std::move(waiter), *std::move(outcome));
      } else {
        if (&*waiting != &waiter) *waiting = std::move(waiter);
        ++waiting;
      }
    }
    waiters_.erase(waiting, waiters_.end());
    post = post_callbacks_;
  }
  auto call = [](Ready& callbacks) {
    for (auto& [waiter, outcome] : callbacks) std::move(waiter.done)(std::move(outcome));
  };
  if (!post) {
    call(ready);
    return;
  }
  for (std::size_t first = 0; first < ready.size(); first += kCallbacksPerTask) {
    const std::size_t last = std::min(ready.size(), first + kCallbacksPerTask);
    // Shared: a pool's task is a copyable std::function.
    auto task = std::make_shared<Ready>(std::make_move_iterator(ready.begin() + first),
                                        std::make_move_iterator(ready.begin() + last));
    post([task, call] { call(*task); });
  }
}

bool Journal::Durable(std::int64_t lsn) const {
  MutexLock lock(&mu_);
  std::optional<absl::Status> outcome = OutcomeLocked(lsn);
  return outcome && outcome->ok();
}

std::int64_t Journal::last_lsn() const {
  MutexLock lock(&mu_);
  return next_lsn_ - 1;
}

std::int64_t Journal::commits() const {
  MutexLock lock(&mu_);
  return commits_;
}

void Journal::SetCallbackExecutor(std::function<void(std::function<void()>)> post) {
  MutexLock lock(&mu_);
  post_callbacks_ = std::move(post);
}

void Journal::SetCommitObserver(std::function<void(double, std::size_t)> observe) {
  MutexLock lock(&mu_);
  observe_commit_ = std::move(observe);
}

void Journal::SetHealthObserver(std::function<void(const absl::Status&)> observe) {
  MutexLock lock(&mu_);
  observe_health_ = std::move(observe);
}

absl::Status Journal::SetPageLimitForTest(std::int64_t pages) {
  // The limit is per connection: it goes on the writer's, between two commits.
  MutexLock writer(&writer_mu_);
  const std::string sql =
      absl::StrCat("PRAGMA max_page_count=", pages > 0 ? pages : std::int64_t{1} << 30);
  return Exec(writer_, sql.c_str());
}

absl::Status Journal::StepOnce(sqlite3_stmt* stmt, std::string_view what) const {
  absl::Status status = sqlite3_step(stmt) == SQLITE_DONE ? absl::OkStatus() : Error(writer_, what);
  sqlite3_reset(stmt);
  return status;
}

absl::Status Journal::CommitBatch(const std::vector<Pending>& batch) {
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
  for (const Pending& p : batch) {
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

absl::Status Journal::Probe() {
  if (absl::Status s = Exec(writer_, "BEGIN IMMEDIATE"); !s.ok()) return s;
  absl::Status status =
      Exec(writer_, "INSERT OR REPLACE INTO meta(key, value) VALUES('probe', randomblob(64))");
  if (status.ok()) status = Exec(writer_, "COMMIT");
  if (!status.ok() && !sqlite3_get_autocommit(writer_)) (void)Exec(writer_, "ROLLBACK");
  return status;
}

void Journal::CommitLoop() {
  while (true) {
    std::vector<Pending> batch;
    bool probe = false;
    {
      MutexLock lock(&mu_);
      while (queue_.empty() && !stopping_ && fault_.empty()) mu_.Wait(work_);
      if (!fault_.empty()) {
        if (stopping_) return;
        mu_.WaitFor(work_, kProbeInterval);
        if (stopping_) return;
        probe = true;
      } else if (queue_.empty()) {
        return;  // stopping, and everything queued is committed
      } else {
        batch.swap(queue_);
      }
    }
    if (probe) {
      bool recovered = false;
      {
        MutexLock writer(&writer_mu_);
        recovered = Probe().ok();
        // A journal that started read-only marks itself open with its first commit.
        if (recovered && !marked_open_) marked_open_ = MarkOpen().ok();
      }
      if (recovered) {
        std::function<void(const absl::Status&)> observe;
        {
          MutexLock lock(&mu_);
          fault_.clear();
          observe = observe_health_;
        }
        if (observe) observe(absl::OkStatus());
      }
      continue;
    }
    // On disk without mu_: appends (made under cluster locks) never wait for an fsync.
    absl::Status status;
    const auto started = std::chrono::steady_clock::now();
    {
      MutexLock writer(&writer_mu_);
      status = CommitBatch(batch);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::function<void(double, std::size_t)> observe;
    std::function<void(const absl::Status&)> observe_health;
    {
      MutexLock lock(&mu_);
      observe = observe_commit_;
      if (!status.ok()) observe_health = observe_health_;
      if (status.ok()) {
        durable_lsn_ = batch.back().lsn;
        ++commits_;
      } else {
        // What was queued meanwhile may build on the failed changes: it fails with them.
        fault_ = std::string(status.message());
        failed_.emplace_back(batch.front().lsn, next_lsn_ - 1);
        queue_.clear();
      }
    }
    durable_.notify_all();
    CallWaiters(false);
    if (status.ok() && observe) observe(seconds, batch.size());
    if (observe_health) observe_health(status);
  }
}

}  // namespace resched::server
