#include "core/model/time.h"

#include "absl/time/time.h"

namespace resched {

std::string FormatInstant(Time t) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", absl::FromUnixMicros(t), absl::UTCTimeZone());
}

}  // namespace resched
