#include "server/app/row_occupancy.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <utility>

namespace resched::server {
namespace {

// The rows of block `block` within [first_row, end_row), as a mask of the block's 64.
std::uint64_t RowsOfBlockIn(int block, int first_row, int end_row) {
  const int from = std::max(first_row - block * 64, 0);
  const int to = std::min(end_row - block * 64, 64);
  const std::uint64_t below_to = to == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << to) - 1;
  const std::uint64_t below_from = (std::uint64_t{1} << from) - 1;
  return below_to & ~below_from;
}

// The busy rows of `block` at `at`.
std::uint64_t MaskAt(const absl::btree_map<Time, std::uint64_t>& block, Time at) {
  auto after = block.upper_bound(at);
  return after == block.begin() ? 0 : std::prev(after)->second;
}

}  // namespace

RowOccupancy::RowOccupancy(int rows)
    : blocks_((rows + 63) / 64), last_times_(blocks_.size(), std::numeric_limits<Time>::min()) {}

void RowOccupancy::Set(std::span<const int> ids, Time start, Time end, bool busy) {
  if (start >= end) return;
  // The rows of each block, in the order their blocks first come.
  std::vector<std::pair<int, std::uint64_t>> by_block;
  for (int id : ids) {
    const std::uint64_t bit = std::uint64_t{1} << (id % 64);
    if (!by_block.empty() && by_block.back().first == id / 64) {
      by_block.back().second |= bit;
      continue;
    }
    auto same = std::find_if(by_block.begin(), by_block.end(),
                             [&](const auto& block) { return block.first == id / 64; });
    if (same != by_block.end()) {
      same->second |= bit;
    } else {
      by_block.emplace_back(id / 64, bit);
    }
  }
  for (const auto& [block, rows] : by_block) SetBlock(block, rows, start, end, busy);
}

void RowOccupancy::SetBlock(int block_index, std::uint64_t rows, Time start, Time end, bool busy) {
  absl::btree_map<Time, std::uint64_t>& block = blocks_[block_index];
  auto changed = [&](std::uint64_t mask) { return busy ? mask | rows : mask & ~rows; };
  // One search, for the span's end; the rest walks back from there over the few times a span
  // covers (each search of a block the caches no longer hold costs a miss per level).
  auto it = block.lower_bound(end);
  if (it == block.end() || it->first != end) {
    it = block.emplace_hint(it, end, it == block.begin() ? 0 : std::prev(it)->second);
  }
  while (it != block.begin() && std::prev(it)->first >= start) {
    --it;
    it->second = changed(it->second);
  }
  if (it->first != start) {
    it = block.emplace_hint(it, start, changed(it == block.begin() ? 0 : std::prev(it)->second));
  }
  // Drop the times from `start` to `end` whose rows are those before them.
  std::uint64_t before = it == block.begin() ? 0 : std::prev(it)->second;
  while (it != block.end() && it->first <= end) {
    if (it->second == before) {
      it = block.erase(it);
    } else {
      before = it->second;
      ++it;
    }
  }
  last_times_[block_index] =
      block.empty() ? std::numeric_limits<Time>::min() : block.rbegin()->first;
}

std::vector<std::uint64_t> RowOccupancy::BusyOver(int first_row, int end_row, Time start,
                                                  Time end) const {
  std::vector<std::uint64_t> words;
  if (first_row >= end_row) return words;
  for (int b = first_row / 64; b <= (end_row - 1) / 64; ++b) {
    if (last_times_[b] <= start) {  // every row of the block is free from its last time on
      words.push_back(0);
      continue;
    }
    const std::uint64_t asked = RowsOfBlockIn(b, first_row, end_row);
    const absl::btree_map<Time, std::uint64_t>& block = blocks_[b];
    auto it = block.upper_bound(start);
    std::uint64_t mask = it == block.begin() ? 0 : std::prev(it)->second;
    // Once every row asked for is busy, the times after add nothing: in a full stretch of the
    // schedule that is after a time or two, not the hundreds a long span lies across.
    for (; it != block.end() && it->first < end && (mask & asked) != asked; ++it) {
      mask |= it->second;
    }
    words.push_back(mask & asked);
  }
  return words;
}

std::vector<std::uint64_t> RowOccupancy::BusyAt(int first_row, int end_row, Time at) const {
  std::vector<std::uint64_t> words;
  if (first_row >= end_row) return words;
  for (int b = first_row / 64; b <= (end_row - 1) / 64; ++b) {
    words.push_back(last_times_[b] <= at ? 0 : MaskAt(blocks_[b], at));
  }
  return words;
}

std::size_t RowOccupancy::TimesKept() const {
  std::size_t times = 0;
  for (const auto& block : blocks_) times += block.size();
  return times;
}

}  // namespace resched::server
