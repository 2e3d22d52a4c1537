// A booking a plan's image or a recorded change refers to must be one the timeline holds, with
// the same window (ClusterPlan::FromImage, ClusterPlan::ApplyChange).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/timeline/timeline.h"

namespace resched {

inline absl::Status CheckBooking(const Timeline& timeline, ReservationId booking,
                                 const Allocation& allocation, const std::string& what) {
  const std::optional<Allocation> held = timeline.Get(booking);
  if (held && *held == allocation) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(what, " is booked as reservation ", booking,
                                          ", which the timeline does not hold as such"));
}

}  // namespace resched
