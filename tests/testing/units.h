// Durations the tests write in seconds.
#pragma once

#include "core/model/time.h"

namespace resched::testing {

inline constexpr Duration kS = kMicrosPerSecond;

}  // namespace resched::testing
