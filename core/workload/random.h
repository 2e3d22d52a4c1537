// Portable random numbers for the workload generators. libstdc++'s distributions are not specified
// to give the same values on every implementation, so the draws here are computed from
// std::mt19937_64's raw 64-bit output (which the standard does fix): same seed, same workload,
// everywhere.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace resched {

class WorkloadRng {
 public:
  explicit WorkloadRng(std::uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1): the top 53 bits, so every value is an exact double.
  double Uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Uniform in [lo, hi) (lo when lo == hi).
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform01(); }

  // Log-uniform in [lo, hi), lo > 0: sizes spread over orders of magnitude.
  double LogUniform(double lo, double hi) { return std::exp(Uniform(std::log(lo), std::log(hi))); }

  // Exponential with rate `rate` > 0 (mean 1 / rate), by inversion; 1 - u is in (0, 1].
  double Exponential(double rate) { return -std::log(1.0 - Uniform01()) / rate; }

  // Gaussian, by the Box-Muller transform (one of its two values; 1 - u is in (0, 1]).
  double Normal(double mean, double deviation) {
    const double radius = std::sqrt(-2.0 * std::log(1.0 - Uniform01()));
    return mean + deviation * radius * std::cos(2.0 * std::numbers::pi * Uniform01());
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace resched
