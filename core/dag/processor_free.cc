#include "core/dag/processor_free.h"

namespace resched {

ProcessorFree::ProcessorFree(int processors, const Timeline* timeline)
    : timelines_{timeline}, first_{0, processors}, group_of_(processors, 0) {}

ProcessorFree::ProcessorFree(std::vector<const Timeline*> groups)
    : timelines_(std::move(groups)), first_{0} {
  for (std::size_t g = 0; g < timelines_.size(); ++g) {
    const int count = timelines_[g]->capacity();
    first_.push_back(first_.back() + count);
    group_of_.insert(group_of_.end(), count, static_cast<int>(g));
  }
}

std::optional<Time> ProcessorFree::EarliestFree(int j, Time from, Duration length) const {
  const int g = group_of_[j];
  if (timelines_[g] == nullptr) return from;
  return timelines_[g]->EarliestStart(from, length, j - first_[g] + 1);
}

bool ProcessorFree::FreeOver(int j, Time start, Time end) const {
  const int g = group_of_[j];
  if (timelines_[g] == nullptr || start >= end) return true;
  return j - first_[g] < timelines_[g]->MinFree(start, end);
}

}  // namespace resched
