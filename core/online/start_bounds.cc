#include "core/online/start_bounds.h"

#include <algorithm>
#include <iterator>

namespace resched {

void StartBounds::Sync(const Timeline& timeline) {
  if (timeline.capacity_version() == version_) return;
  version_ = timeline.capacity_version();
  facts_.clear();
}

Time StartBounds::KnownBound(int k, Duration d) const {
  const auto it = facts_.find(k);
  if (it == facts_.end()) return anchor_;
  const std::vector<Fact>& facts = it->second;
  // The last fact with fact.d <= d has the latest bound among them.
  const auto after =
      std::upper_bound(facts.begin(), facts.end(), d,
                       [](Duration value, const Fact& fact) { return value < fact.d; });
  return after == facts.begin() ? anchor_ : std::prev(after)->bound;
}

Time StartBounds::SearchFrom(const Timeline& timeline, int k, Duration d, Time not_before) {
  Sync(timeline);
  if (facts_.empty() || not_before < anchor_) return not_before;
  return std::max(not_before, KnownBound(k, d));
}

void StartBounds::Learn(const Timeline& timeline, int k, Duration d, Time from,
                        Time no_start_before) {
  Sync(timeline);
  if (facts_.empty()) {
    anchor_ = from;
  } else if (from > KnownBound(k, d)) {
    return;  // [anchor_, from) is not known to be blocked: the fact does not reach the anchor
  }
  std::vector<Fact>& facts = facts_[k];
  const auto after =
      std::upper_bound(facts.begin(), facts.end(), d,
                       [](Duration value, const Fact& fact) { return value < fact.d; });
  // A fact for a d no longer than this one with a bound as late says as much.
  if (after != facts.begin() && std::prev(after)->bound >= no_start_before) return;
  // Facts for a d at least as long with no later bound say no more than this one.
  const auto first =
      std::lower_bound(facts.begin(), facts.end(), d,
                       [](const Fact& fact, Duration value) { return fact.d < value; });
  auto last = first;
  while (last != facts.end() && last->bound <= no_start_before) ++last;
  facts.insert(facts.erase(first, last), Fact{d, no_start_before});
  if (facts.size() > kFactsPerWidth) facts.erase(facts.begin());
}

}  // namespace resched
