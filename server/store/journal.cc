#include "server/store/journal.h"

#include <chrono>

#include "absl/strings/str_cat.h"

namespace resched::server {
namespace {

constexpr auto kProbeInterval = std::chrono::milliseconds(200);

}  // namespace

Journal::Journal(std::unique_ptr<JournalStore> store) : store_(std::move(store)) {
  MutexLock lock(&mu_);
  durable_lsn_ = store_->last_lsn();
  next_lsn_ = durable_lsn_ + 1;
  fault_ = store_->open_fault();
}

absl::StatusOr<std::unique_ptr<Journal>> Journal::Open(const std::string& dir,
                                                       JournalOpenOptions options) {
  absl::StatusOr<std::unique_ptr<SqliteJournalStore>> store =
      SqliteJournalStore::Open(dir, options);
  if (!store.ok()) return store.status();
  return Start(*std::move(store));
}

std::unique_ptr<Journal> Journal::Start(std::unique_ptr<JournalStore> store) {
  auto journal = std::unique_ptr<Journal>(new Journal(std::move(store)));
  journal->committer_ = std::thread([raw = journal.get()] { raw->CommitLoop(); });
  return journal;
}

Journal::~Journal() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  work_.notify_all();
  if (committer_.joinable()) committer_.join();
  CallWaiters(true);
}

absl::Status Journal::Scan(const std::function<absl::Status(const StoredRecord&)>& fn,
                           const std::string* cluster) const {
  return store_->Scan(fn, cluster);
}

absl::Status Journal::ScanAfter(const std::function<absl::Status(const StoredRecord&)>& fn,
                                const std::string& cluster, std::int64_t after) const {
  return store_->ScanAfter(fn, cluster, after);
}

absl::Status Journal::ScanSnapshots(const std::function<absl::Status(const StoredRecord&)>& fn,
                                    const std::string* cluster) const {
  return store_->ScanSnapshots(fn, cluster);
}

absl::Status Journal::WriteToStore(const std::function<absl::Status(JournalStore&)>& write) {
  if (absl::Status s = CheckWritable(); !s.ok()) return s;
  MutexLock writer(&writer_mu_);
  return write(*store_);
}

absl::Status Journal::WriteSnapshot(const std::string& cluster, std::int64_t lsn,
                                    std::string_view payload) {
  return WriteToStore(
      [&](JournalStore& store) { return store.WriteSnapshot(cluster, lsn, payload); });
}

absl::Status Journal::DropClusterBefore(const std::string& cluster, std::int64_t lsn) {
  return WriteToStore([&](JournalStore& store) { return store.DropClusterBefore(cluster, lsn); });
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
    queue_.push_back(StoredRecord{lsn, std::move(cluster), std::move(payload)});
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
          fault_.empty() ? absl::StrCat(store_->name(), ": the change was not saved") : fault_);
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
        outcome = absl::UnavailableError(
            absl::StrCat(store_->name(), ": the server stopped before the change was saved"));
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

void Journal::AdvancePast(std::int64_t lsn) {
  MutexLock lock(&mu_);
  if (lsn < next_lsn_) return;
  // Every LSN skipped counts as durable: no record will ever have it.
  if (queue_.empty() && durable_lsn_ == next_lsn_ - 1) durable_lsn_ = lsn;
  next_lsn_ = lsn + 1;
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

absl::Status Journal::SetSizeLimitForTest(std::int64_t pages) {
  MutexLock writer(&writer_mu_);
  return store_->SetSizeLimitForTest(pages);
}

void Journal::TakeBatchLocked(std::vector<StoredRecord>& batch) {
  const std::size_t max_records = store_->max_batch_records();
  const std::int64_t max_bytes = store_->max_batch_bytes();
  std::size_t taken = 0;
  std::int64_t bytes = 0;
  while (taken < queue_.size() && taken < max_records) {
    const StoredRecord& next = queue_[taken];
    bytes += static_cast<std::int64_t>(next.payload.size() + next.cluster.size());
    if (taken > 0 && bytes > max_bytes) break;  // one record alone always goes
    ++taken;
  }
  if (taken == queue_.size()) {
    batch.swap(queue_);
    return;
  }
  batch.assign(std::make_move_iterator(queue_.begin()),
               std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(taken)));
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(taken));
}

void Journal::CommitLoop() {
  while (true) {
    std::vector<StoredRecord> batch;
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
        TakeBatchLocked(batch);
      }
    }
    if (probe) {
      bool recovered = false;
      {
        MutexLock writer(&writer_mu_);
        recovered = store_->Probe().ok();
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
      status = store_->Commit(batch);
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
