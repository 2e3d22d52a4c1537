// The reservation timeline: construction, reservation records, the change record and the op
// log (core/timeline/timeline_internal.h lists the other files).
#include "core/timeline/timeline.h"

#include <algorithm>
#include <atomic>
#include <cassert>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/timeline/timeline_internal.h"

namespace resched {

using namespace timeline_internal;  // NOLINT: the timeline's own helpers

// ---------------------------------------------------------------------------------------------
// Construction, records.

// A capacity outside [0, kMaxCapacity] (268M processors) is clamped: the constructor cannot fail.
Timeline::Timeline(int capacity) : capacity_(std::clamp(capacity, 0, kMaxCapacity)) {
  root_ = NewLeaf();
  Leaf& l = leaves_[root_];
  l.key[0] = kTimeMin;
  l.free[0] = capacity_;
  l.refs[0] = 1;  // the extra reference pins the sentinel
  l.count = 1;
  breakpoints_ = 1;
  // A wide request on a busy profile waits for free capacity close to the max: thresholds
  // 3.1 %, 8 % and 20 % of the capacity below it tell those runs apart (measured,
  // docs/timeline.md).
  constexpr int kRunOffsetPerMille[kRunLevels] = {31, 80, 200};
  for (int g = 0; g < kRunLevels; ++g) {
    run_offsets_[g] = static_cast<int>(std::int64_t{capacity_} * kRunOffsetPerMille[g] / 1000);
  }
}

const Timeline::Record* Timeline::FindRecord(ReservationId id) const {
  const std::int64_t slot = (id & 0xffffffff) - 1;
  if (id <= 0 || slot < 0 || slot >= static_cast<std::int64_t>(records_.size())) return nullptr;
  const Record& r = records_[slot];
  if (!r.live || r.generation != static_cast<std::uint64_t>(id) >> 32) return nullptr;
  return &r;
}

std::optional<Allocation> Timeline::Get(ReservationId id) const {
  const Record* r = FindRecord(id);
  if (r == nullptr) return std::nullopt;
  return r->reservation;
}

absl::StatusOr<ReservationId> Timeline::Add(Time start, Time end, int k) {
  return Insert(start, end, k, /*check_capacity=*/true);
}

absl::StatusOr<ReservationId> Timeline::ForceAdd(Time start, Time end, int k) {
  return Insert(start, end, k, /*check_capacity=*/false);
}

absl::StatusOr<ReservationId> Timeline::Insert(Time start, Time end, int k, bool check_capacity) {
  if (start < kTimeMin) {
    return absl::InvalidArgumentError(
        absl::StrFormat("start must be >= kTimeMin (%d), got %d", kTimeMin, start));
  }
  if (end > kTimeMax) {
    return absl::InvalidArgumentError(
        absl::StrFormat("end must be <= kTimeMax (%d), got %d", kTimeMax, end));
  }
  if (start >= end) {
    return absl::InvalidArgumentError(
        absl::StrFormat("end must be > start (%d), got %d", start, end));
  }
  if (k < 1) return absl::InvalidArgumentError(absl::StrFormat("k must be >= 1, got %d", k));
  // Checked before anything changes, so a rejection needs no undo.
  const int min_free = MinFree(start, end);
  if (check_capacity && min_free < k) {
    return absl::ResourceExhaustedError(
        absl::StrCat("k must be <= the free capacity over [", start, ", ", end, "), which is ",
                     min_free, "; got ", k));  // StrCat: rejections are frequent, keep them cheap
  }
  if (std::int64_t{min_free} - k < kFreeFloor) {
    return absl::OutOfRangeError(
        absl::StrFormat("k must keep free capacity >= %d over [%d, %d) (now %d), got %d",
                        kFreeFloor, start, end, min_free, k));
  }
  Pin(start);
  Pin(end);
  AddRange(root_, height_, start, end, kNoKey, -k);
  std::uint32_t slot;
  if (free_records_.empty()) {
    slot = static_cast<std::uint32_t>(records_.size());
    records_.emplace_back();
  } else {
    slot = free_records_.back();
    free_records_.pop_back();
  }
  Record& r = records_[slot];
  r.reservation = Allocation{k, start, end};
  r.live = true;
  if (++r.generation == 0) r.generation = 1;  // ids stay > 0
  ++live_reservations_;
  const auto id = static_cast<ReservationId>((std::uint64_t{r.generation} << 32) | (slot + 1u));
  changes_.Append({id, r.reservation, /*added=*/true}, live_reservations_);
  if (ops_.on) ops_.ops.push_back({id, r.reservation, /*added=*/true});
  return id;
}

void Timeline::ReleaseHeld(ReservationId id, Time searches_from) {
  const Record* record = FindRecord(id);
  const bool ended = record != nullptr && record->reservation.end <= searches_from;
  const std::uint64_t version = version_.value;
  [[maybe_unused]] const absl::Status removed = Remove(id);
  assert(removed.ok());
  if (ended) version_.value = version;
  if (changes_.stream != 0 && !changes_.entries.empty()) {
    changes_.entries.back().searches_from = searches_from;  // Remove recorded it just now
  }
  if (ops_.on && removed.ok()) ops_.ops.back().searches_from = searches_from;  // logged too
}

void Timeline::LogOps(bool on) {
  ops_.on = on;
  if (!on) std::vector<TimelineChange>().swap(ops_.ops);
}

std::vector<TimelineChange> Timeline::TakeOps() {
  std::vector<TimelineChange> out;
  out.swap(ops_.ops);
  return out;
}

absl::Status Timeline::ApplyOp(const TimelineChange& op) {
  if (!op.added) {
    if (FindRecord(op.id) == nullptr) {
      return absl::DataLossError(
          absl::StrCat("the logged release of reservation ", op.id, " finds no such reservation"));
    }
    ReleaseHeld(op.id, op.searches_from);
    return absl::OkStatus();
  }
  const Allocation& a = op.reservation;
  absl::StatusOr<ReservationId> id = Insert(a.start, a.end, a.k, /*check_capacity=*/false);
  if (!id.ok()) {
    return absl::DataLossError(absl::StrCat("the logged add of reservation ", op.id,
                                            " does not apply: ", id.status().message()));
  }
  if (*id != op.id) {
    ReleaseHeld(*id);
    return absl::DataLossError(absl::StrCat("the logged add of reservation ", op.id, " gets id ",
                                            *id, " here: the timelines differ"));
  }
  return absl::OkStatus();
}

std::uint64_t Timeline::RecordChanges() {
  changes_.entries.clear();
  changes_.stream = Version::Next();
  return changes_.stream;
}

void Timeline::DropChanges(std::size_t count) {
  auto& entries = changes_.entries;
  entries.erase(entries.begin(),
                entries.begin() + static_cast<std::ptrdiff_t>(std::min(count, entries.size())));
  // A burst of changes leaves no large buffer behind on a cluster that is quiet again.
  if (entries.empty() && entries.capacity() > kMinChangeBound / 16) entries.shrink_to_fit();
}

void Timeline::ChangeRecord::Append(const TimelineChange& change, std::size_t live_reservations) {
  if (stream == 0) return;
  // Room for a policy that re-books every queued job at once (n releases, then n adds).
  if (entries.size() >= std::max<std::size_t>(kMinChangeBound, 4 * live_reservations)) {
    stream = 0;  // the reader rebuilds instead; the memory goes
    std::vector<TimelineChange>().swap(entries);
    return;
  }
  entries.push_back(change);
}

std::uint64_t Timeline::Version::Next() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

absl::Status Timeline::Remove(ReservationId id) {
  const Record* record = FindRecord(id);
  if (record == nullptr) {
    return absl::NotFoundError(absl::StrCat("reservation ", id, " not found"));
  }
  version_.Renew();
  const Allocation r = record->reservation;
  const auto slot = static_cast<std::uint32_t>(record - records_.data());
  records_[slot].live = false;
  free_records_.push_back(slot);
  // Release first: an unused key then has its predecessor's value and can simply go.
  AddRange(root_, height_, r.start, r.end, kNoKey, r.k);
  Unpin(r.start);
  Unpin(r.end);
  --live_reservations_;
  changes_.Append({id, r, /*added=*/false}, live_reservations_);
  if (ops_.on) ops_.ops.push_back({id, r, /*added=*/false});
  return absl::OkStatus();
}

}  // namespace resched
