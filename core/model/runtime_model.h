// Runtime (speedup) models p(k): the run time of a job or task on k processors.
// Each kind below cites its formula; docs/algorithms.md ("Runtime models") lists them with
// their deviations. Real-valued results are rounded up to the microsecond.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "core/model/time.h"

namespace resched {

// Explicit table: the run time for each listed width; only listed widths are allowed.
struct TableModel {
  struct Entry {
    int k = 0;
    Duration time = 0;
  };
  std::vector<Entry> entries;
};

// Amdahl: t(k) = t1 * (alpha + (1 - alpha) / k), k in [k_min, k_max].
struct AmdahlModel {
  Duration t1 = 0;
  double alpha = 0;
  int k_min = 1;
  int k_max = 0;  // 0: up to the cluster's capacity
};

// Downey (A, sigma): t(k) = t1 / S(k), S being DowneySpeedup below.
struct DowneyModel {
  Duration t1 = 0;
  double a = 1;  // average parallelism A >= 1
  double sigma = 0;
  int k_min = 1;
  int k_max = 0;
};

// Rigid: exactly k processors for time t.
struct RigidModel {
  int k = 0;
  Duration time = 0;
};

// Power-of-two steps: allowed widths are 1, 2, 4, ...; times[i] is the run time on 2^i.
struct PowerOfTwoModel {
  std::vector<Duration> times;
};

// Chrétien et al. 2012, §2: t(n) = ceil(req_procs / n) * req_time for 1 <= n <= req_procs.
struct CeilModel {
  int req_procs = 0;
  Duration req_time = 0;
};

// Barbosa & Monteiro §3, eq. (1), generalized: t(p) = T_L + n^2 (r + c - 2) / w + flops / (p s)
// with r x c the most square processor grid of p (r <= c). No communication for p = 1.
struct CommunicationModel {
  double flops = 0;            // f(n), floating point operations of the parallel part
  double matrix_size = 0;      // n: elements per side exchanged across the grid
  double latency_s = 0;        // T_L, seconds
  double bandwidth = 0;        // w, elements per second
  double processor_speed = 0;  // s, flop/s of one processor
  int k_min = 1;
  int k_max = 0;
};

using RuntimeModelParams = std::variant<TableModel, AmdahlModel, DowneyModel, RigidModel,
                                        PowerOfTwoModel, CeilModel, CommunicationModel>;

// Where a model stops being monotonic (t(k) non-increasing and k * t(k) non-decreasing), if it
// does. Moldable algorithms that assume monotony check this instead of assuming it.
struct MonotonyReport {
  bool time_non_increasing = true;
  bool work_non_decreasing = true;
  int first_time_violation_k = 0;  // the width whose time exceeds the previous width's
  int first_work_violation_k = 0;
  bool monotonic() const { return time_non_increasing && work_non_decreasing; }
};

// Downey's speedup S(n) for average parallelism `a` and variance `sigma` (Downey, "A model for
// speedup of parallel programs"; formula in docs/algorithms.md, "Runtime models"); S(1) = 1.
double DowneySpeedup(double a, double sigma, int n);

class RuntimeModel {
 public:
  RuntimeModel() = default;
  explicit RuntimeModel(RuntimeModelParams params) : params_(std::move(params)) {}

  // Checks parameters; errors name the field and the limit ("amdahl.alpha must be ...").
  absl::Status Validate() const;

  // Allowed widths on a cluster of `capacity` processors, ascending. Empty when none fits.
  std::vector<int> Widths(int capacity) const;
  // Run time on k processors; k must be one of Widths(capacity) for some capacity >= k.
  Duration TimeOn(int k) const;
  // Sequential time p(1) where the model defines it, else the time on the smallest width
  // times that width (the work-conserving extrapolation); used for stretch (Saule §2.1).
  Duration SequentialTime() const;
  // The same job on processors `speed` times as fast as the reference processor the model's
  // times are given for (a group of a cluster of several speeds, Barbosa & Monteiro §3): every
  // time above is divided by `speed` and rounded up. Replaces any earlier speed.
  RuntimeModel OnSpeed(double speed) const;
  double speed() const { return speed_; }
  bool IsRigid() const { return std::holds_alternative<RigidModel>(params_); }
  MonotonyReport CheckMonotony(int capacity) const;
  std::string KindName() const;

  const RuntimeModelParams& params() const { return params_; }

 private:
  Duration ReferenceTimeOn(int k) const;
  Duration OnThisSpeed(Duration reference) const {
    return speed_ == 1 ? reference : ScaleDuration(reference, speed_);
  }

  RuntimeModelParams params_;
  double speed_ = 1;
};

}  // namespace resched
