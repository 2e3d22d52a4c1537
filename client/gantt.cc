#include "client/gantt.h"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/render.h"
#include "client/table.h"

namespace resched::cli {
namespace {

constexpr int kMaxRows = 64;
constexpr int64_t kMaxAssignedProcessors = 1 << 22;  // beyond: no client-side id assignment
constexpr char kReservationChar = '#';
constexpr char kIdleChar = '.';

struct Item {
  int64_t start = 0, end = 0;
  int32_t k = 0;
  std::vector<int32_t> ids;  // empty: not placed on processors
  char ch = '?';
  bool placed = false;
};

struct Window {
  int64_t from = 0, to = 0;
  int cells = 0;
  int64_t CellStart(int c) const {
    return from + static_cast<int64_t>(static_cast<__int128>(to - from) * c / cells);
  }
  // The boundary between cells nearest to t, in [0, cells].
  int BoundaryOf(int64_t t) const {
    __int128 span = to - from;
    return static_cast<int>((static_cast<__int128>(t - from) * cells * 2 + span) / (span * 2));
  }
  int CellOf(int64_t t) const {
    return static_cast<int>(static_cast<__int128>(t - from) * cells / (to - from));
  }
};

bool Overlaps(const std::vector<std::pair<int64_t, int64_t>>& busy, int64_t s, int64_t e) {
  for (const auto& [bs, be] : busy) {
    if (bs < e && s < be) return true;
  }
  return false;
}

// Places jobs on their ids, then gives the others the lowest ids free over their interval
// (not on huge clusters, where they go to the "other" row).
void AssignProcessors(std::vector<Item>& items, int32_t capacity) {
  std::vector<size_t> pending;
  for (size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    it.placed = !it.ids.empty() && std::all_of(it.ids.begin(), it.ids.end(), [&](int32_t id) {
      return id >= 0 && id < capacity;
    });
    if (!it.placed) {
      it.ids.clear();
      pending.push_back(i);
    }
  }
  if (pending.empty() || capacity > kMaxAssignedProcessors) return;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> busy(capacity);
  for (const Item& it : items) {
    for (int32_t id : it.ids) busy[id].emplace_back(it.start, it.end);
  }
  std::stable_sort(pending.begin(), pending.end(),
                   [&](size_t a, size_t b) { return items[a].start < items[b].start; });
  for (size_t i : pending) {
    Item& it = items[i];
    std::vector<int32_t> ids;
    for (int32_t p = 0; p < capacity && static_cast<int32_t>(ids.size()) < it.k; ++p) {
      if (!Overlaps(busy[p], it.start, it.end)) ids.push_back(p);
    }
    if (it.k <= 0 || static_cast<int32_t>(ids.size()) < it.k) continue;
    for (int32_t id : ids) busy[id].emplace_back(it.start, it.end);
    it.ids = std::move(ids);
    it.placed = true;
  }
}

struct Cell {
  __int128 score = 0;
  int item = -1;
};

// Marks the cells of `row` that `item` covers with `weight` processors.
void Paint(std::vector<Cell>& row, const Window& w, const Item& item, int item_index,
           int64_t weight) {
  int64_t s = std::max(item.start, w.from), e = std::min(item.end, w.to);
  if (s >= e || weight <= 0) return;
  for (int c = w.CellOf(s); c <= std::min(w.CellOf(e - 1), w.cells - 1); ++c) {
    int64_t overlap = std::min(e, w.CellStart(c + 1)) - std::max(s, w.CellStart(c));
    __int128 score = static_cast<__int128>(overlap) * weight;
    if (overlap > 0 && score > row[c].score) row[c] = {score, item_index};
  }
}

std::string TickLabel(int64_t t, int64_t step, int64_t from, TimeStyle style) {
  if (style == TimeStyle::kSimulated) return FormatTime(t, style);
  if (step < 1'000'000) return absl::StrCat("+", FormatDuration(t - from));
  const char* format = step >= 86'400'000'000 ? "%m-%d" : step >= 60'000'000 ? "%H:%M" : "%H:%M:%S";
  return absl::FormatTime(format, absl::FromUnixMicros(t), absl::UTCTimeZone());
}

// The axis line ("+----+----+") and the tick labels under it, starting at column `indent`.
std::pair<std::string, std::string> Axis(const Window& w, size_t indent, size_t max_width,
                                         TimeStyle style) {
  constexpr int64_t kMs = 1'000, kS = 1'000'000, kMin = 60 * kS, kH = 60 * kMin, kD = 24 * kH;
  static constexpr std::array<int64_t, 40> kSteps = {
      1,         2,         5,        10,        20,        50,        100,      200,
      500,       kMs,       2 * kMs,  5 * kMs,   10 * kMs,  20 * kMs,  50 * kMs, 100 * kMs,
      200 * kMs, 500 * kMs, kS,       2 * kS,    5 * kS,    10 * kS,   15 * kS,  30 * kS,
      kMin,      2 * kMin,  5 * kMin, 10 * kMin, 15 * kMin, 30 * kMin, kH,       2 * kH,
      3 * kH,    6 * kH,    12 * kH,  kD,        2 * kD,    7 * kD,    30 * kD,  365 * kD};
  std::vector<std::pair<int, std::string>> ticks;
  for (int64_t step : kSteps) {
    ticks.clear();
    int64_t first = w.from / step * step;
    if (first < w.from) first += step;
    bool fits = true;
    for (int64_t t = first; t < w.to && fits; t += step) {
      int c = w.BoundaryOf(t);
      if (!ticks.empty() &&
          ticks.back().first + static_cast<int>(ticks.back().second.size()) + 1 > c) {
        fits = false;
      }
      ticks.emplace_back(c, TickLabel(t, step, w.from, style));
    }
    if (fits) break;
  }
  // Boundary b (the instant CellStart(b)) is drawn at column indent - 1 + b: the left border
  // is `from`, the right border is `to`.
  std::string axis = std::string(indent - 1, ' ') + "+" + std::string(w.cells, '-') + "+";
  std::string labels;
  for (const auto& [b, label] : ticks) {
    size_t pos = indent - 1 + b;
    axis[pos] = '+';
    if (pos < labels.size() || pos + label.size() > max_width) continue;
    labels.resize(pos, ' ');
    labels += label;
  }
  return {axis, labels};
}

// The time of one column, rounded to 3 significant digits ("~1m35s") when not exact.
std::string ColumnDuration(int64_t span, int cells) {
  int64_t d = span / cells;
  bool exact = span % cells == 0;
  int64_t unit = 1;
  while (d / unit >= 1000) unit *= 10;
  if (unit >= 100'000 && d >= 60'000'000) unit = 1'000'000;  // whole seconds past a minute
  int64_t rounded = (d + unit / 2) / unit * unit;
  // StrCat, not operator+: GCC 12 reports a false -Wrestrict on the latter once inlined.
  return absl::StrCat(exact && rounded == d ? "" : "~", FormatDuration(rounded));
}

}  // namespace

char JobChar(size_t index) {
  static constexpr absl::string_view kChars =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  return kChars[index % kChars.size()];
}

char DagTaskChar(const resched::v1::Schedule& schedule, size_t index) {
  return JobChar(static_cast<size_t>(schedule.jobs_size()) + index);
}

std::string RenderGantt(const resched::v1::Schedule& schedule, const GanttOptions& options) {
  // The items: jobs, reservations, then DAG tasks (the order of the ties).
  std::vector<Item> items;
  int32_t capacity = schedule.capacity();
  for (int i = 0; i < schedule.jobs_size(); ++i) {
    const auto& a = schedule.jobs(i).allocation();
    Item it{ToMicros(a.start()),
            ToMicros(a.end()),
            a.processors(),
            {a.processor_ids().begin(), a.processor_ids().end()},
            JobChar(i)};
    if (schedule.capacity() <= 0) {  // not filled in: what the allocations show
      capacity = std::max(capacity, it.k);
      for (int32_t id : it.ids) capacity = std::max(capacity, id + 1);
    }
    items.push_back(std::move(it));
  }
  for (const auto& r : schedule.reservations()) {
    items.push_back({ToMicros(r.start()), ToMicros(r.end()), r.processors(), {}, kReservationChar});
  }
  for (int i = 0; i < schedule.dag_tasks_size(); ++i) {
    const auto& a = schedule.dag_tasks(i).allocation();
    Item it{ToMicros(a.start()),
            ToMicros(a.end()),
            a.processors(),
            {a.processor_ids().begin(), a.processor_ids().end()},
            DagTaskChar(schedule, i)};
    if (schedule.capacity() <= 0) {
      capacity = std::max(capacity, it.k);
      for (int32_t id : it.ids) capacity = std::max(capacity, id + 1);
    }
    items.push_back(std::move(it));
  }

  Window w;
  w.from = schedule.has_from() ? ToMicros(schedule.from()) : ToMicros(schedule.now());
  w.to = schedule.has_to() ? ToMicros(schedule.to()) : w.from;
  if (!schedule.has_to()) {
    for (const Item& it : items) w.to = std::max(w.to, it.end);
  }
  if (w.to <= w.from) w.to = w.from + 1'000'000;

  std::string out =
      absl::StrCat(schedule.cluster(), ": ", capacity, " processors, ",
                   FormatTime(w.from, options.style), " .. ", FormatTime(w.to, options.style));
  bool visible = std::any_of(items.begin(), items.end(), [&](const Item& it) {
    return it.start < w.to && w.from < it.end && it.end > it.start;
  });
  if (!visible || capacity <= 0) return out + "\n(nothing scheduled in this window)\n";

  AssignProcessors(items, capacity);
  const int band = (capacity + kMaxRows - 1) / kMaxRows;
  const int rows = (capacity + band - 1) / band;
  const bool other =
      std::any_of(items.begin(), items.end(), [](const Item& it) { return !it.placed; });

  // On groups of different speeds, each row is labelled with the group of its first processor.
  const std::vector<std::string> group_names = GroupNames(schedule);
  std::vector<int> group_first_id;
  for (int g = 0, next = 0; g < schedule.groups_size(); ++g) {
    group_first_id.push_back(next);
    next += schedule.groups(g).count();
  }
  auto group_label = [&](int id) -> std::string {
    if (group_first_id.empty()) return "";
    const auto g = std::upper_bound(group_first_id.begin(), group_first_id.end(), id) -
                   group_first_id.begin() - 1;
    return absl::StrCat(group_names[g], " ");
  };
  std::vector<std::string> labels;
  for (int r = 0; r < rows; ++r) {
    int lo = r * band, hi = std::min(capacity, lo + band) - 1;
    labels.push_back(
        absl::StrCat(group_label(lo), lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, "-", hi)));
  }
  if (other) labels.emplace_back("other");
  size_t label_width = 0;
  for (const std::string& l : labels) label_width = std::max(label_width, l.size());

  w.cells = static_cast<int>(std::max<int64_t>(
      20, static_cast<int64_t>(options.width) - static_cast<int64_t>(label_width) - 3));
  w.cells = static_cast<int>(std::min<int64_t>(w.cells, w.to - w.from));
  for (int g = 0; g < schedule.groups_size(); ++g) {
    absl::StrAppend(&out, g == 0 ? ", groups " : ", ", group_names[g], " = ", group_first_id[g],
                    "-", group_first_id[g] + schedule.groups(g).count() - 1, " at speed ",
                    schedule.groups(g).speed());
  }
  absl::StrAppend(&out, ", 1 column = ", ColumnDuration(w.to - w.from, w.cells));
  if (band > 1) absl::StrAppend(&out, ", 1 row = ", band, " processors");
  out += "\n";

  std::vector<std::vector<Cell>> grid(labels.size(), std::vector<Cell>(w.cells));
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    if (!it.placed) {
      Paint(grid.back(), w, it, static_cast<int>(i), it.k);
      continue;
    }
    std::map<int, int64_t> per_row;
    for (int32_t id : it.ids) ++per_row[id / band];
    for (const auto& [row, count] : per_row) Paint(grid[row], w, it, static_cast<int>(i), count);
  }

  for (size_t r = 0; r < grid.size(); ++r) {
    std::string line = std::string(label_width - labels[r].size(), ' ') + labels[r] + " |";
    for (const Cell& cell : grid[r]) line += cell.item < 0 ? kIdleChar : items[cell.item].ch;
    out += line + "|\n";
  }
  auto [axis, tick_labels] =
      Axis(w, label_width + 2, static_cast<size_t>(options.width), options.style);
  out += axis + "\n";
  if (!tick_labels.empty()) out += tick_labels + "\n";

  if (!options.legend) return out;
  Table legend({"", "ID", "STATE", ">K", "START", "END", "NAME"});
  for (int i = 0; i < schedule.jobs_size(); ++i) {
    const auto& job = schedule.jobs(i);
    const auto& a = job.allocation();
    legend.AddRow({std::string(1, JobChar(i)), job.id(), resched::v1::JobState_Name(job.state()),
                   absl::StrCat(a.processors()),
                   FormatTime(a.has_start(), a.start(), options.style),
                   FormatTime(a.has_end(), a.end(), options.style), job.spec().name()});
  }
  for (const auto& r : schedule.reservations()) {
    legend.AddRow({std::string(1, kReservationChar), r.id(), "RESERVED",
                   absl::StrCat(r.processors()),
                   FormatTime(r.has_start(), r.start(), options.style),
                   FormatTime(r.has_end(), r.end(), options.style), r.reason()});
  }
  for (int i = 0; i < schedule.dag_tasks_size(); ++i) {
    const auto& slot = schedule.dag_tasks(i);
    const auto& a = slot.allocation();
    legend.AddRow({std::string(1, DagTaskChar(schedule, i)),
                   slot.dag_id().empty() ? "-" : slot.dag_id(), "DAG", absl::StrCat(a.processors()),
                   FormatTime(a.has_start(), a.start(), options.style),
                   FormatTime(a.has_end(), a.end(), options.style), slot.task()});
  }
  absl::StrAppend(&out, "legend ('", std::string(1, kIdleChar), "' idle):\n", legend.Render());
  return out;
}

}  // namespace resched::cli
