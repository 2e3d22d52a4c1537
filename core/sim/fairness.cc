#include "core/sim/fairness.h"

namespace resched {

SizeClass SizeClassOf(Duration sequential_time) {
  constexpr Duration kMinute = 60 * kMicrosPerSecond;
  constexpr Duration kHour = 60 * kMinute;
  constexpr Duration kDay = 24 * kHour;
  constexpr Duration kWeek = 7 * kDay;
  if (sequential_time < kMinute) return SizeClass::kSeconds;
  if (sequential_time < kHour) return SizeClass::kMinutes;
  if (sequential_time < kDay) return SizeClass::kHours;
  if (sequential_time < kWeek) return SizeClass::kDays;
  return SizeClass::kWeeks;
}

const char* SizeClassName(SizeClass size_class) {
  switch (size_class) {
    case SizeClass::kSeconds:
      return "seconds";
    case SizeClass::kMinutes:
      return "minutes";
    case SizeClass::kHours:
      return "hours";
    case SizeClass::kDays:
      return "days";
    case SizeClass::kWeeks:
      return "weeks";
  }
  return "unknown";
}

void FairnessHistogram::Add(const FairnessHistogram& other) {
  for (int i = 0; i < kSizeClassCount; ++i) {
    bins[i].jobs += other.bins[i].jobs;
    bins[i].stretched += other.bins[i].stretched;
  }
}

FairnessHistogram ComputeFairness(const std::vector<MetricItem>& items) {
  FairnessHistogram h;
  for (const MetricItem& item : items) {
    if (item.sequential_time <= 0) continue;
    FairnessBin& bin = h.bins[static_cast<int>(SizeClassOf(item.sequential_time))];
    ++bin.jobs;
    if (item.end - item.release > item.sequential_time) ++bin.stretched;
  }
  return h;
}

}  // namespace resched
