#include "core/online/part_views.h"

#include <iterator>

namespace resched {

PartViews::PartViews(const std::vector<int>& capacities)
    : capacities_(capacities), bounds_(capacities.size()), job_starts_(capacities.size()) {
  views_.reserve(capacities.size());
  for (int capacity : capacities) {
    views_.emplace_back(capacity);
  }
}

PartViews::PartViews(const std::vector<int>& capacities, const std::vector<int>& group_of_part,
                     const std::vector<int>& group_capacities)
    : PartViews([&] {
        std::vector<int> all = capacities;
        all.insert(all.end(), group_capacities.begin(), group_capacities.end());
        return all;
      }()) {
  group_of_part_ = group_of_part;
}

PartViews::PartViews(const PartViews& other) : PartViews(other.capacities_) {
  group_of_part_ = other.group_of_part_;
}

void PartViews::Mirror(ReservationId id, const Allocation& a, const Owner& owner) {
  if (mirrored_.contains(id)) return;  // adopted before its add was read
  // ForceAdd: a view may go over its capacity where the plan put a booking the part's policy
  // would not have (searches treat that as full); it fails only for an empty window or k < 1,
  // which no booking of the shared timeline has.
  const auto booked = views_[owner.part].ForceAdd(a.start, a.end, a.k);
  if (!booked.ok()) return;
  ReservationId in_group = -1;
  if (const int group_view = GroupViewOf(owner.part); group_view >= 0) {
    if (const auto added = views_[group_view].ForceAdd(a.start, a.end, a.k); added.ok()) {
      in_group = *added;
    }
  }
  mirrored_[id] = Mirrored{owner.part, *booked, owner.kind, in_group};
  if (owner.kind == Kind::kJob) job_starts_[owner.part].insert(a.start);
  if (owner.kind == Kind::kReplanned) ++replanned_;
}

bool PartViews::CatchUp(Timeline& shared, const OwnerOf& owner_of, const OnReleased& released) {
  if (!Follows(shared)) return false;
  const std::vector<TimelineChange>& changes = shared.changes();
  std::size_t read = 0;
  bool complete = true;
  for (; read < changes.size(); ++read) {
    const TimelineChange& change = changes[read];
    if (change.added) {
      const Owner owner = owner_of(change.id);
      if (owner.part == kUnknown) {
        complete = false;
        break;
      }
      if (owner.part >= 0) Mirror(change.id, change.reservation, owner);
      continue;
    }
    // Every release is reported: the caller may know a booking no view holds (a part adopted
    // a running job whose booking was of no part when it was made).
    released(change.id, change.reservation);
    const auto it = mirrored_.find(change.id);
    if (it == mirrored_.end()) continue;  // a booking of no part
    const Mirrored m = it->second;
    mirrored_.erase(it);
    views_[m.part].ReleaseHeld(m.view_booking, change.searches_from);
    if (m.group_view_booking >= 0) {
      views_[GroupViewOf(m.part)].ReleaseHeld(m.group_view_booking, change.searches_from);
    }
    if (m.kind == Kind::kJob) {
      auto& starts = job_starts_[m.part];
      starts.erase(starts.find(change.reservation.start));
    }
    if (m.kind == Kind::kReplanned) --replanned_;
  }
  shared.DropChanges(read);
  return complete;
}

void PartViews::Rebuild(Timeline& shared,
                        const std::vector<std::pair<ReservationId, Owner>>& owned) {
  for (std::size_t part = 0; part < views_.size(); ++part) {
    views_[part] = Timeline(capacities_[part]);
    job_starts_[part].clear();
  }
  mirrored_.clear();
  replanned_ = 0;
  for (const auto& [id, owner] : owned) {
    if (const auto a = shared.Get(id)) Mirror(id, *a, owner);
  }
  stream_ = shared.RecordChanges();
}

void PartViews::Adopt(ReservationId id, int part, const Allocation& booking) {
  const auto it = mirrored_.find(id);
  if (it == mirrored_.end()) {
    Mirror(id, booking, Owner{part, Kind::kJob});
    return;
  }
  if (it->second.kind != Kind::kReplanned) return;
  it->second.kind = Kind::kJob;
  --replanned_;
  job_starts_[it->second.part].insert(booking.start);
}

Time PartViews::LatestJobStart(int part) const {
  const auto& starts = job_starts_[part];
  return starts.empty() ? kTimeMin : *starts.rbegin();
}

Time PartViews::LatestJobStartBy(int part, Time t) const {
  const auto& starts = job_starts_[part];
  const auto after = starts.upper_bound(t);
  return after == starts.begin() ? kTimeMin : *std::prev(after);
}

}  // namespace resched
