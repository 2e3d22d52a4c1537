#include "server/app/row_occupancy.h"

#include <iterator>

namespace resched::server {
namespace {

// The busy rows of `block` at `at`.
std::uint64_t MaskAt(const absl::btree_map<Time, std::uint64_t>& block, Time at) {
  auto after = block.upper_bound(at);
  return after == block.begin() ? 0 : std::prev(after)->second;
}

}  // namespace

RowOccupancy::RowOccupancy(int rows) : blocks_((rows + 63) / 64) {}

void RowOccupancy::Set(int id, Time start, Time end, bool busy) {
  if (start >= end) return;
  absl::btree_map<Time, std::uint64_t>& block = blocks_[id / 64];
  const std::uint64_t bit = std::uint64_t{1} << (id % 64);
  // Times at both ends, with the rows there before the change.
  block.try_emplace(end, MaskAt(block, end));
  auto it = block.try_emplace(start, MaskAt(block, start)).first;
  for (; it->first < end; ++it) it->second = busy ? it->second | bit : it->second & ~bit;
  // Drop the times from `start` to `end` whose rows are those before them.
  it = block.find(start);
  std::uint64_t before = it == block.begin() ? 0 : std::prev(it)->second;
  while (it != block.end() && it->first <= end) {
    if (it->second == before) {
      it = block.erase(it);
    } else {
      before = it->second;
      ++it;
    }
  }
}

std::vector<std::uint64_t> RowOccupancy::BusyOver(int first_row, int end_row, Time start,
                                                  Time end) const {
  std::vector<std::uint64_t> words;
  if (first_row >= end_row) return words;
  for (int b = first_row / 64; b <= (end_row - 1) / 64; ++b) {
    const absl::btree_map<Time, std::uint64_t>& block = blocks_[b];
    auto it = block.upper_bound(start);
    std::uint64_t mask = it == block.begin() ? 0 : std::prev(it)->second;
    for (; it != block.end() && it->first < end; ++it) mask |= it->second;
    words.push_back(mask);
  }
  return words;
}

std::vector<std::uint64_t> RowOccupancy::BusyAt(int first_row, int end_row, Time at) const {
  std::vector<std::uint64_t> words;
  if (first_row >= end_row) return words;
  for (int b = first_row / 64; b <= (end_row - 1) / 64; ++b) {
    words.push_back(MaskAt(blocks_[b], at));
  }
  return words;
}

std::size_t RowOccupancy::TimesKept() const {
  std::size_t times = 0;
  for (const auto& block : blocks_) times += block.size();
  return times;
}

}  // namespace resched::server
