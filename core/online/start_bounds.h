// What earlier earliest-start searches on a timeline proved, kept to skip the same ground next
// time. A search for k processors over d that began at `from` and answered s (or nothing up to
// a limit) shows that no run of d with k free starts in [from, s). Such a fact stays true while
// the timeline only gains bookings, and it holds for every longer d, so a later search for k and
// d' >= d may begin at s. On a deep conservative backlog this skips the packed stretch that
// every submission would otherwise cross width by width.
//
// Facts are dropped when the timeline's capacity_version() changes (a removal, or another
// timeline). They all reach back to one anchor, the first search's start since they were last
// dropped; a search that begins before the anchor uses none of them.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/model/time.h"
#include "core/timeline/timeline.h"

namespace resched {

class StartBounds {
 public:
  // Where a search for k processors over d from not_before may begin: not_before, or later when
  // a fact shows nothing fits before.
  Time SearchFrom(const Timeline& timeline, int k, Duration d, Time not_before);
  // Records a search that began at `from` (as SearchFrom said) and found no start before
  // `no_start_before`. Kept only when what is known for k and d already reaches `from` (or
  // nothing is known at all, which makes `from` the anchor): a search that began past the
  // known ground leaves a gap and teaches nothing.
  void Learn(const Timeline& timeline, int k, Duration d, Time from, Time no_start_before);

  // Facts kept per width: the best ones, by d.
  static constexpr std::size_t kFactsPerWidth = 32;

 private:
  // Nothing fits in [anchor_, bound) for d or longer.
  struct Fact {
    Duration d;
    Time bound;
  };
  void Sync(const Timeline& timeline);
  // The latest bound of the facts for k with a d no longer than `d`; anchor_ when none.
  Time KnownBound(int k, Duration d) const;

  std::uint64_t version_ = 0;  // no timeline has version 0
  Time anchor_ = kTimeMin;
  // Per width, d ascending and bound strictly ascending (a fact with a longer d and no later
  // bound than another says nothing more).
  absl::flat_hash_map<int, std::vector<Fact>> facts_;
};

}  // namespace resched
