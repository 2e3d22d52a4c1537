// The vocabulary of the whole core: k processors over the time window [start, end). A job's
// allocation, a timeline booking, an external hold and a schedule's capacity hold are all this.
#pragma once

#include "core/model/time.h"

namespace resched {

struct Allocation {
  int k = 0;
  Time start = 0;
  Time end = 0;  // exclusive

  friend bool operator==(const Allocation&, const Allocation&) = default;
};

}  // namespace resched
