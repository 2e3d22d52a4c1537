// Timeline::Image and FromImage: a timeline saved and restored with the same reservation ids,
// so that what refers to a booking by id (jobs, holds, a partition's parts) stays true.
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/timeline/timeline.h"

namespace resched {

TimelineImage Timeline::Image() const {
  TimelineImage image;
  image.capacity = capacity_;
  image.slots.reserve(records_.size());
  for (const Record& r : records_) image.slots.push_back({r.reservation, r.generation, r.live});
  image.free_slots = free_records_;
  return image;
}

absl::StatusOr<Timeline> Timeline::FromImage(const TimelineImage& image) {
  if (image.capacity < 0) {
    return absl::DataLossError(
        absl::StrCat("timeline capacity must be >= 0, got ", image.capacity));
  }
  // Every slot is either live or listed once as free, never both.
  std::vector<bool> listed(image.slots.size(), false);
  for (const std::uint32_t slot : image.free_slots) {
    if (slot >= image.slots.size()) {
      return absl::DataLossError(absl::StrCat("timeline free slot ", slot, " is out of range (",
                                              image.slots.size(), " slots)"));
    }
    if (listed[slot] || image.slots[slot].live) {
      return absl::DataLossError(
          absl::StrCat("timeline slot ", slot, " is listed as free twice or while live"));
    }
    listed[slot] = true;
  }
  Timeline timeline(image.capacity);
  for (std::size_t slot = 0; slot < image.slots.size(); ++slot) {
    const TimelineImage::Slot& s = image.slots[slot];
    if (!s.live) {
      if (!listed[slot]) {
        return absl::DataLossError(
            absl::StrCat("timeline slot ", slot, " is neither live nor listed as free"));
      }
      continue;
    }
    if (s.generation == 0) {
      return absl::DataLossError(absl::StrCat("timeline slot ", slot, " is live at generation 0"));
    }
    // Booked without the capacity check: a node loss may have left free(t) below zero.
    auto booked = timeline.Insert(s.reservation.start, s.reservation.end, s.reservation.k, false);
    if (!booked.ok()) {
      return absl::DataLossError(
          absl::StrCat("timeline slot ", slot, ": ", booked.status().message()));
    }
  }
  // The tree does not depend on slots: the records are replaced by the image's own.
  timeline.records_.clear();
  timeline.records_.reserve(image.slots.size());
  for (const TimelineImage::Slot& s : image.slots) {
    timeline.records_.push_back(Record{s.reservation, s.generation, s.live});
  }
  timeline.free_records_ = image.free_slots;
  return timeline;
}

}  // namespace resched
