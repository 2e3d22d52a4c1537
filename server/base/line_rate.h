// At most one line per interval for a flood of alike lines (every call refused while the
// journal cannot commit), each line counting the ones left out since the last: a full disk then
// adds a line a second to the log instead of one per call.
#pragma once

#include <cstdint>

#include "absl/time/time.h"
#include "server/base/mutex.h"

namespace resched::server {

class LineRate {
 public:
  explicit LineRate(absl::Duration interval) : interval_(interval) {}
  // Whether a line may be written at `now`; when it may, `suppressed` is the number of lines
  // left out since the last one.
  bool Admit(absl::Time now, std::int64_t* suppressed) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const absl::Duration interval_;
  Mutex mu_;
  absl::Time last_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::int64_t suppressed_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace resched::server
