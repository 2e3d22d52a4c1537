// Time inside core: an integer count of microseconds, so feasibility checks are exact.
// Real-valued runtimes are rounded up to the next microsecond.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace resched {

using Time = std::int64_t;      // instant, microseconds since the cluster's epoch
using Duration = std::int64_t;  // length, microseconds

inline constexpr Time kTimeMin = std::numeric_limits<Time>::min() / 4;
inline constexpr Time kTimeMax = std::numeric_limits<Time>::max() / 4;
inline constexpr Duration kMicrosPerSecond = 1'000'000;

// Rounds a duration given in (possibly fractional) seconds up to whole microseconds.
inline Duration CeilMicros(double seconds) {
  const double micros = seconds * static_cast<double>(kMicrosPerSecond);
  // Guard against 1e-9 noise turning an exact value into the next microsecond.
  const double rounded = std::round(micros);
  if (std::fabs(micros - rounded) < 1e-6) return static_cast<Duration>(rounded);
  return static_cast<Duration>(std::ceil(micros));
}

// A duration on a processor `speed` times as fast as the reference one, rounded up to the
// microsecond (exact quotients stay exact despite floating-point noise).
inline Duration ScaleDuration(Duration d, double speed) {
  const double x = static_cast<double>(d) / speed;
  const double rounded = std::round(x);
  if (std::fabs(x - rounded) < 1e-6) return static_cast<Duration>(rounded);
  return static_cast<Duration>(std::ceil(x));
}

// An instant for messages: RFC 3339 in UTC with microseconds when needed (a SIMULATED clock's
// zero is 1970-01-01T00:00:00Z).
std::string FormatInstant(Time t);

}  // namespace resched
