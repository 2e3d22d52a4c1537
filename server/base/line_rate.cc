#include "server/base/line_rate.h"

namespace resched::server {

bool LineRate::Admit(absl::Time now, std::int64_t* suppressed) {
  MutexLock lock(&mu_);
  if (now - last_ < interval_) {
    ++suppressed_;
    return false;
  }
  last_ = now;
  *suppressed = suppressed_;
  suppressed_ = 0;
  return true;
}

}  // namespace resched::server
