// Busy rows by block of 64, against a reference that keeps each row's spans and checks them one
// by one.
#include "server/app/row_occupancy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace resched::server {
namespace {

// The search of a block stops once every row asked for is busy: what comes after, and rows not
// asked for, do not show.
TEST(RowOccupancy, ABlockWhoseRowsAskedForAreAllBusyShowsJustThose) {
  RowOccupancy rows(128);
  std::vector<int> upper_rows;
  for (int id = 10; id < 64; ++id) upper_rows.push_back(id);
  rows.Add(upper_rows, 0, 10);
  rows.Add(3, 15, 20);   // not asked for below
  rows.Add(40, 20, 30);  // asked for, after the block was full
  rows.Add(70, 0, 30);   // the next block
  const std::vector<std::uint64_t> from_row_10 = rows.BusyOver(10, 128, 0, 30);
  EXPECT_EQ(from_row_10[0], ~std::uint64_t{0} << 10);
  EXPECT_EQ(from_row_10[1], std::uint64_t{1} << (70 - 64));
  const std::vector<std::uint64_t> from_row_0 = rows.BusyOver(0, 64, 0, 30);
  EXPECT_EQ(from_row_0[0], (~std::uint64_t{0} << 10) | (std::uint64_t{1} << 3));
  const std::vector<std::uint64_t> after_full = rows.BusyOver(0, 64, 12, 30);
  EXPECT_EQ(after_full[0], (std::uint64_t{1} << 3) | (std::uint64_t{1} << 40));
  const std::vector<std::uint64_t> rows_20_to_50 = rows.BusyOver(20, 50, 0, 30);
  EXPECT_EQ(rows_20_to_50[0], ((std::uint64_t{1} << 50) - 1) & ~((std::uint64_t{1} << 20) - 1));
}

TEST(RowOccupancy, ARowIsBusyOnlyOverItsSpansAndNothingIsKeptOnceTheyLeave) {
  RowOccupancy rows(130);  // three blocks, the last one partly used
  rows.Add(3, 10, 20);
  rows.Add(129, 15, 30);
  rows.Add(3, 20, 25);  // touching the first: one busy stretch
  EXPECT_TRUE(RowOccupancy::Has(rows.BusyOver(0, 130, 19, 21), 0, 3));
  EXPECT_FALSE(RowOccupancy::Has(rows.BusyOver(0, 130, 25, 40), 0, 3));
  EXPECT_TRUE(RowOccupancy::Has(rows.BusyOver(100, 130, 0, 16), 100, 129));
  EXPECT_FALSE(RowOccupancy::Has(rows.BusyAt(100, 130, 30), 100, 129));
  rows.Remove(3, 10, 20);
  EXPECT_FALSE(RowOccupancy::Has(rows.BusyOver(0, 64, 0, 20), 0, 3));
  rows.Remove(3, 20, 25);
  rows.Remove(129, 15, 30);
  EXPECT_EQ(rows.TimesKept(), 0u);
}

TEST(RowOccupancy, RandomSpansAgreeWithEachRowChecked) {
  std::mt19937 rng(5);
  constexpr int kRows = 200;
  constexpr int kHorizon = 60;
  RowOccupancy rows(kRows);
  std::vector<std::map<Time, Time>> reference(kRows);  // per row: start -> end
  auto free_over = [&](int id, Time start, Time end) {
    for (const auto& [s, e] : reference[id]) {
      if (s < end && start < e) return false;
    }
    return true;
  };
  for (int step = 0; step < 20000; ++step) {
    const int id = static_cast<int>(rng() % kRows);
    if (!reference[id].empty() && rng() % 2 == 0) {
      auto it = reference[id].begin();
      std::advance(it, rng() % reference[id].size());
      rows.Remove(id, it->first, it->second);
      reference[id].erase(it);
    } else {
      const Time start = rng() % kHorizon;
      const Time end = start + 1 + rng() % 10;
      if (free_over(id, start, end)) {
        rows.Add(id, start, end);
        reference[id].emplace(start, end);
      }
    }
    // A range of rows that starts and ends inside blocks, as a processor group's may.
    const int first = static_cast<int>(rng() % kRows);
    const int end = first + 1 + static_cast<int>(rng() % (kRows - first));
    const Time start = rng() % kHorizon;
    const Time end_time = start + 1 + rng() % 12;
    const std::vector<std::uint64_t> over = rows.BusyOver(first, end, start, end_time);
    const std::vector<std::uint64_t> at = rows.BusyAt(first, end, start);
    for (int row = first; row < end; ++row) {
      ASSERT_EQ(RowOccupancy::Has(over, first, row), !free_over(row, start, end_time))
          << "row " << row << " over [" << start << ", " << end_time << "), step " << step;
      ASSERT_EQ(RowOccupancy::Has(at, first, row), !free_over(row, start, start + 1))
          << "row " << row << " at " << start << ", step " << step;
    }
  }
  for (int id = 0; id < kRows; ++id) {
    for (const auto& [start, end] : reference[id]) rows.Remove(id, start, end);
  }
  EXPECT_EQ(rows.TimesKept(), 0u);
}

TEST(RowOccupancy, RowsChangedTogetherAgreeWithEachRowChecked) {
  std::mt19937 rng(11);
  constexpr int kRows = 300;
  constexpr int kHorizon = 80;
  RowOccupancy rows(kRows);
  struct Item {
    std::vector<int> ids;
    Time start;
    Time end;
  };
  std::vector<Item> items;
  std::vector<std::map<Time, Time>> reference(kRows);
  auto free_over = [&](int id, Time start, Time end) {
    for (const auto& [s, e] : reference[id]) {
      if (s < end && start < e) return false;
    }
    return true;
  };
  for (int step = 0; step < 5000; ++step) {
    if (!items.empty() && rng() % 3 == 0) {
      const size_t index = rng() % items.size();
      const Item& item = items[index];
      rows.Remove(item.ids, item.start, item.end);
      for (int id : item.ids) reference[id].erase(item.start);
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(index));
    } else {
      // Rows free over the span, out of order and over several blocks, as a job takes them.
      const Time start = rng() % kHorizon;
      const Time end = start + 1 + rng() % 15;
      Item item{{}, start, end};
      const int wanted = 1 + static_cast<int>(rng() % 90);
      for (int tries = 0; tries < 200 && static_cast<int>(item.ids.size()) < wanted; ++tries) {
        const int id = static_cast<int>(rng() % kRows);
        if (free_over(id, start, end) &&
            std::find(item.ids.begin(), item.ids.end(), id) == item.ids.end()) {
          item.ids.push_back(id);
        }
      }
      rows.Add(item.ids, start, end);
      for (int id : item.ids) reference[id].emplace(start, end);
      items.push_back(std::move(item));
    }
    const Time start = rng() % (kHorizon + 20);
    const Time end = start + 1 + rng() % 12;
    const std::vector<std::uint64_t> over = rows.BusyOver(0, kRows, start, end);
    const std::vector<std::uint64_t> at = rows.BusyAt(0, kRows, start);
    for (int row = 0; row < kRows; ++row) {
      ASSERT_EQ(RowOccupancy::Has(over, 0, row), !free_over(row, start, end))
          << "row " << row << " over [" << start << ", " << end << "), step " << step;
      ASSERT_EQ(RowOccupancy::Has(at, 0, row), !free_over(row, start, start + 1))
          << "row " << row << " at " << start << ", step " << step;
    }
  }
  for (const Item& item : items) rows.Remove(item.ids, item.start, item.end);
  EXPECT_EQ(rows.TimesKept(), 0u);
}

}  // namespace
}  // namespace resched::server
