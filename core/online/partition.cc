#include "core/online/partition.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/online/moldable_fit.h"

namespace resched {
namespace {

// The private timeline of a part: free(t) = min(capacity - own(t), max(0, outer free(t))) from
// `now` on, where `outer` is the shared timeline or, inside a processor group, the group's
// private timeline (itself built by this function). `outer` must no longer hold the part's
// queued jobs.
Timeline PartTimeline(const Timeline& outer, const std::vector<Allocation>& own, int capacity,
                      Time now) {
  Timeline part(capacity);
  for (const Allocation& r : own) {
    const Time start = std::max(r.start, now);  // searches never look before now
    // ForceAdd fails only for an empty window or k < 1, both excluded.
    if (r.end > start) (void)part.ForceAdd(start, r.end, r.k);
  }
  std::vector<TimelineStep> mine, all;
  part.ForEachStep(now, kTimeMax, [&](const TimelineStep& s) { mine.push_back(s); });
  outer.ForEachStep(now, kTimeMax, [&](const TimelineStep& s) { all.push_back(s); });
  // Walk both step functions together and block what the outer timeline does not have.
  std::vector<Allocation> blocks;
  size_t i = 0, j = 0;
  Time t = now;
  while (i < mine.size() && j < all.size()) {
    const Time end = std::min(mine[i].end, all[j].end);
    const int extra = std::max(0, mine[i].free - std::max(0, all[j].free));
    if (extra > 0) {
      if (!blocks.empty() && blocks.back().end == t && blocks.back().k == extra) {
        blocks.back().end = end;
      } else {
        blocks.push_back({extra, t, end});
      }
    }
    t = end;
    if (mine[i].end == end) ++i;
    if (all[j].end == end) ++j;
  }
  // Blocks are non-empty windows of k >= 1 (ForceAdd's only errors).
  for (const Allocation& b : blocks) (void)part.ForceAdd(b.start, b.end, b.k);
  return part;
}

// The bookings of a trial's placed jobs.
absl::flat_hash_set<ReservationId> TrialBookings(const std::vector<JobRecord*>& jobs) {
  absl::flat_hash_set<ReservationId> bookings;
  for (const JobRecord* job : jobs) {
    if (job->placed) bookings.insert(job->reservation);
  }
  return bookings;
}

}  // namespace

Partition::Partition(std::vector<int> capacities)
    : capacities_(std::move(capacities)),
      running_(capacities_.size()),
      last_start_(capacities_.size(), kTimeMin) {}

Partition::Partition(std::vector<int> capacities, std::vector<int> group_of_part,
                     std::vector<int> group_capacities)
    : capacities_(std::move(capacities)),
      group_of_part_(std::move(group_of_part)),
      group_capacities_(std::move(group_capacities)),
      group_holds_(group_capacities_.size()),
      running_(capacities_.size()),
      last_start_(capacities_.size(), kTimeMin) {}

void Partition::Sync(PlanState& state, const std::function<int(const JobRecord&)>& part_of) {
  if (!views_) {
    if (grouped()) {
      views_.emplace(capacities_, group_of_part_, group_capacities_);
    } else {
      views_.emplace(capacities_);
    }
  }
  absl::flat_hash_set<ReservationId> queued;
  for (const JobRecord* job : state.queue()) {
    if (!job->placed) continue;
    queued.insert(job->reservation);
    if (!bookings_.contains(job->reservation)) {
      bookings_[job->reservation] = Booking{part_of(*job), job->allocation.start};
    }
  }
  // A running job booked by someone else is adopted too: a plan that puts its queue back after
  // a refused reservation may start one of those jobs before any policy call syncs.
  for (const JobRecord* job : state.running()) {
    if (job->placed && !bookings_.contains(job->reservation)) {
      bookings_[job->reservation] = Booking{part_of(*job), job->allocation.start};
      // A Replan's job, now started.
      if (views_) views_->Adopt(job->reservation, part_of(*job), job->allocation);
    }
  }
  for (auto& list : running_) list.clear();
  for (auto it = bookings_.begin(); it != bookings_.end();) {
    const Booking& b = it->second;
    if (queued.contains(it->first)) {
      ++it;
      continue;
    }
    // Not queued: started (the booking stays until the job ends) or gone. A queued job is
    // removed only by a cancel, and the policy hears of a cancel at once, while its planned
    // start is still in the future; so a booking gone with its start passed was a start.
    const auto live = state.timeline().Get(it->first);
    if (b.start <= state.now()) last_start_[b.part] = std::max(last_start_[b.part], b.start);
    if (live) {
      running_[b.part].push_back(*live);
      ++it;
    } else {
      it = bookings_.erase(it);
    }
  }
  // Holds that name a part (its group, inside groups) count there as long as they are booked,
  // like its running jobs.
  for (auto& list : group_holds_) list.clear();
  for (const auto& hold : state.group_bookings()) {
    const auto live = state.timeline().Get(hold.first);
    const std::optional<int> view = HoldView(state, hold.first);
    if (!live || !view) continue;
    if (*view < parts()) {
      running_[*view].push_back(*live);
    } else {
      group_holds_[*view - parts()].push_back(*live);
    }
  }
  // So do the jobs a Replan placed in a part, until they start (then they are running jobs).
  for (const JobRecord* job : state.group_jobs()) {
    if (job->placed) running_[part_of(*job)].push_back(job->allocation);
  }
  SyncViews(state, part_of);
}

PartViews::Owner Partition::OwnerOf(
    const PlanState& state, ReservationId id,
    const absl::flat_hash_map<ReservationId, int>* replanned) const {
  if (const auto it = bookings_.find(id); it != bookings_.end()) {
    return {it->second.part, PartViews::Kind::kJob};
  }
  if (const std::optional<int> view = HoldView(state, id)) return {*view, PartViews::Kind::kHold};
  if (replanned == nullptr) return {PartViews::kUnknown};
  if (const auto it = replanned->find(id); it != replanned->end()) {
    return {it->second, PartViews::Kind::kReplanned};
  }
  return {PartViews::kNoPart};
}

void Partition::Released(const PlanState& state, ReservationId id, const Allocation& booking) {
  const auto it = bookings_.find(id);
  if (it == bookings_.end()) return;
  // Released with its start passed: it started (Sync's rule).
  if (booking.start <= state.now()) {
    last_start_[it->second.part] = std::max(last_start_[it->second.part], booking.start);
  }
  bookings_.erase(it);
}

void Partition::SyncViews(PlanState& state, const std::function<int(const JobRecord&)>& part_of) {
  if (!views_) return;
  absl::flat_hash_map<ReservationId, int> replanned;
  for (const JobRecord* job : state.group_jobs()) {
    if (job->placed) replanned[job->reservation] = part_of(*job);
  }
  // With `replanned` every owner is known, so only a record not followed stops the catch-up.
  if (CatchUpViews(state, &replanned)) return;
  std::vector<std::pair<ReservationId, PartViews::Owner>> owned;
  owned.reserve(bookings_.size() + state.group_bookings().size() + replanned.size());
  for (const auto& [id, booking] : bookings_) {
    owned.push_back({id, {booking.part, PartViews::Kind::kJob}});
  }
  for (const auto& hold : state.group_bookings()) {
    if (const std::optional<int> view = HoldView(state, hold.first)) {
      owned.push_back({hold.first, {*view, PartViews::Kind::kHold}});
    }
  }
  for (const auto& [id, part] : replanned) {
    if (!bookings_.contains(id)) owned.push_back({id, {part, PartViews::Kind::kReplanned}});
  }
  views_->Rebuild(state.timeline(), owned);
}

bool Partition::CatchUpForNewJob(PlanState& state,
                                 const std::function<int(const JobRecord&)>& part_of) {
  if (!views_ || !CatchUpViews(state, nullptr)) return false;
  // Sync adopts a running job someone else booked (a Replan's job that started). Only a
  // booking of no part or a Replan's can be one, so the running jobs are scanned only then.
  if (views_->MayHoldUnadoptedJobs(state.timeline())) {
    for (const JobRecord* job : state.running()) {
      if (!job->placed || bookings_.contains(job->reservation)) continue;
      const int part = part_of(*job);
      bookings_[job->reservation] = Booking{part, job->allocation.start};
      views_->Adopt(job->reservation, part, job->allocation);
    }
  }
  // Sync counts the starts of the live bookings no longer queued. No queued job starts by now
  // when a new job comes (the plan starts every job that is due before it returns), so those
  // are the part's job bookings starting by now.
  for (int part = 0; part < parts(); ++part) {
    last_start_[part] = std::max(last_start_[part], views_->LatestJobStartBy(part, state.now()));
  }
  return true;
}

bool Partition::ViewsUsable(const PlanState& state) const {
  return views_ && views_->Usable(state.timeline());
}

std::optional<NewPlacement> Partition::PlacementOn(PlanState& state, int part, JobRecord& job,
                                                   OnlinePolicy& policy) {
  // The state's queue holds the job alone, so last_start() counts the queued jobs' starts too
  // (OnlinePolicy::PlacementOfNew).
  std::vector<JobRecord*> alone{&job};
  const Time latest = std::max(last_start_[part], views_->LatestJobStart(part));
  Timeline& view = views_->view(part);
  PlanState sub(state.now(), latest, view, alone, nullptr, &views_->bounds(part));
  const Timeline* group = grouped() ? &views_->view(parts() + group_of_part_[part]) : nullptr;
  const bool one_width = job.job.model.Widths(view.capacity()).size() == 1;
  // The private timeline is the view where the shared one (and the group's view, inside groups)
  // has room (part_views.h). Where it has none, a job of one width cannot start on the private
  // timeline before the shared (and group) timelines have room for it again, so the search
  // resumes from there, a few times at most before the full way decides.
  Time from = kTimeMin;
  for (int round = 0; round < kPlacementRounds; ++round) {
    std::optional<NewPlacement> placement = policy.PlacementOfNew(sub, job, from);
    if (!placement) return std::nullopt;
    const Allocation& a = placement->allocation;
    const Duration d = a.end - a.start;
    Time resume = a.start;
    const std::array<const Timeline*, 2> caps = {&state.timeline(), group};
    for (const Timeline* cap : caps) {
      if (cap == nullptr || cap->MinFree(a.start, a.end) >= a.k) continue;
      const std::optional<Time> room = cap->EarliestStart(a.start, d, a.k);
      if (!room) return std::nullopt;
      resume = std::max(resume, *room);
    }
    if (resume == a.start) return placement;
    if (!one_width) return std::nullopt;
    from = resume;
  }
  return std::nullopt;
}

void Partition::CommitNew(PlanState& state, int part, JobRecord& job,
                          const NewPlacement& placement) {
  state.Place(job, placement.allocation, placement.guaranteed);
  bookings_[job.reservation] = Booking{part, placement.allocation.start};
  CatchUpOwnChanges(state);
}

void Partition::CatchUpOwnChanges(PlanState& state) {
  // What the partition itself booked is known; a change made elsewhere stops the catch-up
  // there, for the next Sync.
  if (views_) (void)CatchUpViews(state, nullptr);
}

bool Partition::CatchUpViews(PlanState& state,
                             const absl::flat_hash_map<ReservationId, int>* replanned) {
  return views_->CatchUp(
      state.timeline(), [&](ReservationId id) { return OwnerOf(state, id, replanned); },
      [&](ReservationId id, const Allocation& a) { Released(state, id, a); });
}

Partition::Trial Partition::Try(PlanState& state, int part, std::vector<JobRecord*> jobs,
                                const std::function<void(PlanState&)>& decide) const {
  Timeline shared = state.timeline().Copy();
  for (const JobRecord* job : jobs) {
    if (job->placed) shared.ReleaseHeld(job->reservation);
  }
  Timeline timeline =
      grouped()
          ? PartTimeline(GroupTimeline(state, shared, group_of_part_[part], TrialBookings(jobs)),
                         running_[part], capacities_[part], state.now())
          : PartTimeline(shared, running_[part], capacities_[part], state.now());
  // The sub-state changes the job records; keep what the shared plan knows to put it back.
  struct Saved {
    Allocation allocation;
    bool placed;
    ReservationId reservation;
    bool guaranteed;
  };
  std::vector<Saved> saved;
  saved.reserve(jobs.size());
  for (JobRecord* job : jobs) {
    saved.push_back({job->allocation, job->placed, job->reservation, job->guaranteed});
    if (job->placed) {
      const Allocation& a = job->allocation;
      auto id = timeline.ForceAdd(a.start, a.end, a.k);
      job->placed = id.ok();
      job->reservation = id.ok() ? *id : -1;
    }
  }
  Trial trial{part, jobs, {}, {}};
  PlanState sub(state.now(), last_start_[part], timeline, jobs);
  decide(sub);
  // A policy keeps its queued jobs placed as long as their bookings fit its timeline. They may
  // not, e.g. when a job's part had to be guessed (PartOf for a job no part placed): place the
  // rest where they fit.
  for (JobRecord* job : jobs) {
    if (job->placed) continue;
    const Time not_before = std::max(state.now(), job->job.release);
    if (auto fit = EarliestCompletion(timeline, job->job.model, not_before)) {
      sub.Place(*job, *fit, /*guaranteed=*/false);
    }
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobRecord* job = jobs[i];
    trial.allocations.push_back(job->placed ? std::optional(job->allocation) : std::nullopt);
    trial.guaranteed.push_back(job->guaranteed);
    job->allocation = saved[i].allocation;
    job->placed = saved[i].placed;
    job->reservation = saved[i].reservation;
    job->guaranteed = saved[i].guaranteed;
  }
  return trial;
}

void Partition::Commit(PlanState& state, const Trial& trial) {
  for (JobRecord* job : trial.jobs) {
    if (job->placed) bookings_.erase(job->reservation);
    state.Unplace(*job);
  }
  for (size_t i = 0; i < trial.jobs.size(); ++i) {
    if (!trial.allocations[i]) continue;
    JobRecord& job = *trial.jobs[i];
    state.Place(job, *trial.allocations[i], trial.guaranteed[i]);
    bookings_[job.reservation] = Booking{trial.part, trial.allocations[i]->start};
  }
  // No width fits the part: never for a part the job was sent to. Placed last, on what is free
  // (in the part's group, inside groups).
  for (JobRecord* job : trial.jobs) {
    if (job->placed) continue;
    const Time not_before = std::max(state.now(), job->job.release);
    const std::optional<Timeline> group =
        grouped()
            ? std::optional(GroupTimeline(state, state.timeline(), group_of_part_[trial.part], {}))
            : std::nullopt;
    if (auto fit =
            EarliestCompletion(group ? *group : state.timeline(), job->job.model, not_before)) {
      state.Place(*job, *fit, /*guaranteed=*/false);
      bookings_[job->reservation] = Booking{trial.part, fit->start};
    }
  }
  CatchUpOwnChanges(state);
}

std::optional<int> Partition::HoldView(const PlanState& state, ReservationId id) const {
  const auto& holds = state.group_bookings();
  const auto it = holds.find(id);
  if (it == holds.end() || it->second < 0) return std::nullopt;
  const int group = it->second;
  if (grouped()) {
    if (group >= static_cast<int>(group_capacities_.size())) return std::nullopt;
    return parts() + group;
  }
  if (group >= parts()) return std::nullopt;
  return group;
}

Timeline Partition::GroupTimeline(const PlanState& state, const Timeline& shared, int group,
                                  const absl::flat_hash_set<ReservationId>& excluded) const {
  std::vector<Allocation> in_group = group_holds_[group];
  for (int part = 0; part < parts(); ++part) {
    if (group_of_part_[part] != group) continue;
    in_group.insert(in_group.end(), running_[part].begin(), running_[part].end());
  }
  // Queued jobs are in bookings_ since Sync (or their trial's Commit).
  for (const JobRecord* job : state.queue()) {
    if (!job->placed || excluded.contains(job->reservation)) continue;
    const auto it = bookings_.find(job->reservation);
    if (it != bookings_.end() && group_of_part_[it->second.part] == group) {
      in_group.push_back(job->allocation);
    }
  }
  return PartTimeline(shared, in_group, group_capacities_[group], state.now());
}

void Partition::SaveTo(PolicyImage& image) const {
  PolicyImage::Table last_start, bookings;
  for (int part = 0; part < parts(); ++part) {
    last_start.push_back({"", {part, last_start_[part]}});
  }
  for (const auto& [id, booking] : bookings_) {
    bookings.push_back({"", {id, booking.part, booking.start}});
  }
  image.Put(kLastStartTable, std::move(last_start));
  image.Put(kBookingsTable, std::move(bookings));
}

absl::Status Partition::LoadFrom(const PolicyImage& image) {
  const PolicyImage::Table* last_start = image.Find(kLastStartTable);
  const PolicyImage::Table* bookings = image.Find(kBookingsTable);
  if (last_start == nullptr || bookings == nullptr) {
    return absl::DataLossError(absl::StrCat(
        "the policy image lacks the table '",
        last_start == nullptr ? kLastStartTable : kBookingsTable, "' of its partition"));
  }
  if (static_cast<int>(last_start->size()) != parts()) {
    return absl::DataLossError(absl::StrCat("the policy image has ", last_start->size(),
                                            " parts; this policy has ", parts()));
  }
  std::vector<Time> loaded_last_start(parts());
  for (int part = 0; part < parts(); ++part) {
    const PolicyImage::Row& row = (*last_start)[part];
    if (absl::Status s = CheckRowShape(row, kLastStartTable, 2, false); !s.ok()) return s;
    if (row.values[0] != part) {
      return absl::DataLossError(absl::StrCat("the policy image's table '", kLastStartTable,
                                              "' has part ", row.values[0], " in row ", part));
    }
    loaded_last_start[part] = row.values[1];
  }
  std::map<ReservationId, Booking> loaded_bookings;
  for (const PolicyImage::Row& row : *bookings) {
    if (absl::Status s = CheckRowShape(row, kBookingsTable, 3, false); !s.ok()) return s;
    const std::int64_t part = row.values[1];
    if (part < 0 || part >= parts()) {
      return absl::DataLossError(absl::StrCat("the policy image books reservation ", row.values[0],
                                              " in part ", part, " of ", parts()));
    }
    loaded_bookings[row.values[0]] = Booking{static_cast<int>(part), row.values[2]};
  }
  bookings_ = std::move(loaded_bookings);
  last_start_ = std::move(loaded_last_start);
  return absl::OkStatus();
}

}  // namespace resched
