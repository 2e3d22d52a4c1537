// Processor id lists compressed as ranges: {0,1,2,3,8} -> "0-3,8".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace resched::cli {

// Sorts and deduplicates a copy of `ids` first; "" for no ids.
std::string CompressRanges(std::vector<int32_t> ids);

}  // namespace resched::cli
