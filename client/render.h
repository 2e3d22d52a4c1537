// Human output of the API resources: clusters, jobs, reservations.
#pragma once

#include <string>
#include <vector>

#include "client/durations.h"
#include "resched/v1/service.pb.h"

namespace resched::cli {

// How a cluster's instants are printed: "@DUR" for simulated clocks, RFC 3339 for wall ones.
TimeStyle StyleOf(const resched::v1::Cluster& cluster);

// "wall" or "simulated".
std::string ClockName(resched::v1::ClockKind clock);
// "conservative rho=0.5".
std::string DescribeAlgorithm(const resched::v1::AlgorithmSpec& algorithm);

std::string RenderClusterTable(const std::vector<const resched::v1::Cluster*>& clusters);
std::string RenderClusterDetails(const resched::v1::Cluster& cluster);

// ID, NAME, STATE, GROUP (when a job has one: a cluster of several speeds), K, START, END
// (and PROCESSORS when `with_processors`). A group is shown by its name in `group_names` (its
// index into the cluster's groups), else as "#<index>".
std::string RenderJobTable(const std::vector<const resched::v1::Job*>& jobs, TimeStyle style,
                           bool with_processors = false,
                           const std::vector<std::string>& group_names = {});
// The names of a schedule's processor groups for RenderJobTable ("#<index>" when unnamed).
std::vector<std::string> GroupNames(const resched::v1::Schedule& schedule);
// A GROUP cell: "-" without a group, else its name in `group_names`, else "#<index>".
std::string GroupLabel(bool has_group, int group, const std::vector<std::string>& group_names);
std::string RenderJobDetails(const resched::v1::Job& job, TimeStyle style);

// ID, GROUP (when a hold names one: "any" for the others, names as RenderJobTable), K, START,
// END, REASON.
std::string RenderReservationTable(const std::vector<const resched::v1::Reservation*>& reservations,
                                   TimeStyle style,
                                   const std::vector<std::string>& group_names = {});

// Pointers to the elements of a repeated field, for the functions above.
template <typename T>
std::vector<const T*> Pointers(const google::protobuf::RepeatedPtrField<T>& items) {
  std::vector<const T*> out;
  for (const T& item : items) out.push_back(&item);
  return out;
}

}  // namespace resched::cli
