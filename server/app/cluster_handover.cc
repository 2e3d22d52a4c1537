// Clusters spread over replicas (docs/ha.md): the replica's coordinator
// (server/process/spread_coordinator.h) adopts the clusters placed on it, loading each from the
// journal as another replica left it, and retires those placed elsewhere, so that their next
// owner reads every record they acknowledged.
#include "absl/strings/str_cat.h"
#include "server/app/application.h"
#include "server/base/log.h"

namespace resched::server {

namespace {

// How long a call that finds a retired cluster gone is told it moved: long enough for any call
// routed here before the retirement; a cluster deleted elsewhere meanwhile is not found after.
constexpr absl::Duration kRetiredAnswersFor = absl::Seconds(10);

}  // namespace

absl::Status Application::OpenSpreadStore(std::unique_ptr<JournalStore> store,
                                          ClusterClaims claims) {
  claims_ = std::move(claims);
  absl::StatusOr<bool> taken = TakeJournal(Journal::Start(std::move(store)), /*load=*/false);
  return taken.ok() ? absl::OkStatus() : taken.status();
}

absl::Status Application::AdoptCluster(const std::string& name) {
  // After a creation of the same name in progress here, which claimed it first.
  MutexLock creating(&create_mu_);
  if (Serves(name)) return absl::OkStatus();
  ClusterCopy copy = TakeCopy(name);
  const bool warm = copy.state != nullptr;
  const auto started = absl::Now();
  std::int64_t applied = 0;
  if (absl::Status caught = CatchUp(name, copy, &applied); !caught.ok()) {
    KeepCopy(name, std::move(copy));  // for the next try
    return caught;
  }
  const std::int64_t last_lsn = copy.last_lsn;
  std::shared_ptr<ClusterState> state = std::move(copy.state);
  Log(LogLevel::kInfo, "cluster_loaded",
      applied >= 0 ? absl::StrCat("cluster '", name, "' loaded from its warm copy and ", applied,
                                  " later records in ", absl::FormatDuration(absl::Now() - started))
                   : absl::StrCat("cluster '", name, "' read whole from the journal",
                                  warm ? " (its warm copy could not follow)" : "", " in ",
                                  absl::FormatDuration(absl::Now() - started)),
      {{"cluster", name}, {"records_applied", absl::StrCat(applied)}});
  // Its next records go on after the last one any replica wrote.
  journal_->AdvancePast(last_lsn);
  // The creation's answer, for a retried CreateCluster.
  if (const pb::JournalRecord creation = state->creation(); !creation.request_id().empty()) {
    cluster_replies_.Remember(creation.request_id(), creation.method(), creation.reply());
  }
  state->AttachDurability(MakeDurability());
  Observe(*state);
  WriterMutexLock lock(&clusters_mu_);
  clusters_[name] = std::move(state);
  retired_.erase(name);
  return absl::OkStatus();
}

absl::Status Application::RetireCluster(const std::string& name, const absl::Status& why,
                                        bool lost) {
  std::shared_ptr<ClusterState> state;
  {
    WriterMutexLock lock(&clusters_mu_);
    const auto found = clusters_.find(name);
    if (found == clusters_.end()) return absl::OkStatus();
    state = std::move(found->second);
    clusters_.erase(found);
    const absl::Time now = absl::Now();
    std::erase_if(retired_, [now](const auto& entry) { return entry.second.until <= now; });
    retired_[name] = Retired{.why = why, .until = now + kRetiredAnswersFor};
  }
  const std::int64_t last_lsn = state->Retire(why);
  if (lost || journal_ == nullptr || last_lsn == 0) return absl::OkStatus();
  return journal_->WaitDurable(last_lsn);
}

bool Application::Serves(const std::string& name) {
  ReaderMutexLock lock(&clusters_mu_);
  return clusters_.contains(name);
}

}  // namespace resched::server
