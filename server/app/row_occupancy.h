// Which processor rows are busy when, 64 rows to a word: for each block of 64 rows, the times
// at which the set of its busy rows changes, with the set from then on. Finding the rows free
// over a span then costs one lookup per block instead of one per row (16 on 1,024 processors,
// where ProcessorRows places a job), and the memory stays in proportion to the spans held,
// whatever the number of rows. Each block's last time is kept apart as well, in one small array:
// no row of the block is busy from then on, so that a span after it (a new job at the end of
// the schedule, the usual case) is known free without a search of that block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/container/btree_map.h"
#include "core/model/job.h"

namespace resched::server {

class RowOccupancy {
 public:
  explicit RowOccupancy(int rows);

  // Row `id` is busy over [start, end) / is so no longer. Spans of one row never overlap; a span
  // of no length changes nothing.
  void Add(int id, Time start, Time end) { Set({&id, 1}, start, end, true); }
  void Remove(int id, Time start, Time end) { Set({&id, 1}, start, end, false); }
  // The same for each of `ids` (distinct), one change per block of rows rather than per row.
  void Add(std::span<const int> ids, Time start, Time end) { Set(ids, start, end, true); }
  void Remove(std::span<const int> ids, Time start, Time end) { Set(ids, start, end, false); }

  // The rows of [first_row, end_row) busy at some instant of [start, end) (start < end): row id
  // is bit id % 64 of word id / 64 - first_row / 64 (Has).
  std::vector<std::uint64_t> BusyOver(int first_row, int end_row, Time start, Time end) const;
  // The rows of [first_row, end_row) busy at `at`, as BusyOver.
  std::vector<std::uint64_t> BusyAt(int first_row, int end_row, Time at) const;

  // The times kept over all blocks: none once every span is removed.
  std::size_t TimesKept() const;

  // Whether row `id` is among `words`, a BusyOver or BusyAt answer from `first_row` on.
  static bool Has(const std::vector<std::uint64_t>& words, int first_row, int id) {
    const int bit = id - first_row / 64 * 64;
    return ((words[bit / 64] >> (bit % 64)) & 1U) != 0;
  }

 private:
  void Set(std::span<const int> ids, Time start, Time end, bool busy);
  void SetBlock(int block, std::uint64_t rows, Time start, Time end, bool busy);

  // Per block: time -> its busy rows from then until the next time; none before the first. A
  // time whose rows are those before it is never kept.
  std::vector<absl::btree_map<Time, std::uint64_t>> blocks_;
  // Per block, its last time (none busy from then on); the lowest Time for an empty block.
  std::vector<Time> last_times_;
};

}  // namespace resched::server
