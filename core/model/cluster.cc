#include "core/model/cluster.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace resched {

int ClusterSpec::capacity() const {
  long long total = 0;
  for (const auto& g : groups) total += g.count;
  return static_cast<int>(std::min<long long>(total, kMaxClusterProcessors + 1LL));
}

bool ClusterSpec::homogeneous() const {
  for (const auto& g : groups) {
    if (g.speed != groups.front().speed) return false;
  }
  return true;
}

absl::Status ValidateClusterName(absl::string_view name, absl::string_view field) {
  if (name.empty() || name.size() > 63) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must have 1 to 63 characters, got %d", field, name.size()));
  }
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s may hold only letters, digits, '-', '_' and '.', got '%s'", field, name));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateClusterSpec(const ClusterSpec& spec) {
  if (absl::Status named = ValidateClusterName(spec.name, "cluster.name"); !named.ok()) {
    return named;
  }
  if (spec.groups.empty()) {
    return absl::InvalidArgumentError("cluster.groups is empty: give processors or groups");
  }
  long long total = 0;
  for (size_t i = 0; i < spec.groups.size(); ++i) {
    const auto& g = spec.groups[i];
    if (g.count < 1 || g.count > kMaxClusterProcessors) {
      return absl::InvalidArgumentError(
          absl::StrFormat("cluster.groups[%d].count must be in [1, %d], got %d", i,
                          kMaxClusterProcessors, g.count));
    }
    if (!(g.speed > 0) || !std::isfinite(g.speed)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "cluster.groups[%d].speed must be a finite number > 0, got %g", i, g.speed));
    }
    total += g.count;
  }
  if (total > kMaxClusterProcessors) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cluster processors must total at most %d, got %d", kMaxClusterProcessors, total));
  }
  if (spec.replan.every != 0 && spec.replan.every < kMinReplanEvery) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cluster.replan_every must be 0 (never) or at least 1s, got %d us", spec.replan.every));
  }
  return absl::OkStatus();
}

}  // namespace resched
