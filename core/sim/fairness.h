// The fairness study of Saule et al. §7, Figures 3(e), 4(e) and 5(e): the share of jobs whose
// stretch exceeds 1, by job size class.
//
// As in the paper, a job's size is its sequential processing time p(1) (here: of its runtime model,
// the estimate), and the classes are the unit that size is "expressed in":
//   seconds  p(1) <  1 min
//   minutes  1 min  <= p(1) < 1 h
//   hours    1 h    <= p(1) < 1 day
//   days     1 day  <= p(1) < 1 week (7 days)
//   weeks    1 week <= p(1)
// Stretch is (end - release) / p(1) (Saule §2.1, as in metrics.h); "stretch > 1" is tested exactly,
// as end - release > p(1). The paper aggregates several instances into one histogram: Add() does
// that.
#pragma once

#include <array>
#include <vector>

#include "core/metrics/metrics.h"
#include "core/model/time.h"

namespace resched {

enum class SizeClass { kSeconds, kMinutes, kHours, kDays, kWeeks };
inline constexpr int kSizeClassCount = 5;

SizeClass SizeClassOf(Duration sequential_time);
const char* SizeClassName(SizeClass size_class);  // "seconds", ..., "weeks"

struct FairnessBin {
  int jobs = 0;       // jobs of the class
  int stretched = 0;  // of which stretch > 1
  // Percentage of the class's jobs with stretch > 1 (0 for an empty class), as plotted.
  double percent() const { return jobs == 0 ? 0.0 : 100.0 * stretched / jobs; }
};

struct FairnessHistogram {
  std::array<FairnessBin, kSizeClassCount> bins;  // indexed by SizeClass

  const FairnessBin& operator[](SizeClass c) const { return bins[static_cast<int>(c)]; }
  void Add(const FairnessHistogram& other);
};

// Items with p(1) <= 0 have no stretch and are left out.
FairnessHistogram ComputeFairness(const std::vector<MetricItem>& items);

}  // namespace resched
