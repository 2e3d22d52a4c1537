#include "core/plan/job_ledger.h"

namespace resched {
namespace {

absl::int128 Area(const Allocation& a) { return absl::int128(a.k) * absl::int128(a.end - a.start); }

}  // namespace

void JobLedger::Add(const Counted& counted, int sign) {
  OwnerTotals& owner = owners_[static_cast<std::size_t>(counted.owner)];
  owner.active_jobs += counted.active ? sign : 0;
  owner.queued_area += sign * counted.queued_area;
  ended_area_ += sign * counted.ended_area;
  if (!counted.ran_from) return;
  if (sign > 0) {
    ran_from_.insert(*counted.ran_from);
  } else {
    ran_from_.erase(ran_from_.find(*counted.ran_from));
  }
}

void JobLedger::Account(const JobRecord& job) {
  Counted now;
  auto [index, added_owner] =
      owner_index_.try_emplace(job.job.owner, static_cast<std::int32_t>(owners_.size()));
  if (added_owner) owners_.emplace_back();
  now.owner = index->second;
  const bool placed = job.allocation.k > 0;
  const bool ended = IsEnded(job.state);
  now.active = job.state == JobState::kQueued || job.state == JobState::kRunning;
  if (job.state == JobState::kQueued && placed) now.queued_area = Area(job.allocation);
  if (ended && placed) now.ended_area = Area(job.allocation);
  if ((job.state == JobState::kRunning || ended) && placed) now.ran_from = job.allocation.start;
  auto [it, added] = counted_.try_emplace(job.sequence);
  if (!added) Add(it->second, -1);
  it->second = now;
  Add(now, +1);
}

void JobLedger::Forget(const JobRecord& job) {
  auto it = counted_.find(job.sequence);
  if (it == counted_.end()) return;
  Add(it->second, -1);
  counted_.erase(it);
}

JobLedger::OwnerTotals JobLedger::Owner(const std::string& owner) const {
  auto it = owner_index_.find(owner);
  return it == owner_index_.end() ? OwnerTotals{} : owners_[static_cast<std::size_t>(it->second)];
}

std::optional<Time> JobLedger::first_start() const {
  if (ran_from_.empty()) return std::nullopt;
  return *ran_from_.begin();
}

}  // namespace resched
