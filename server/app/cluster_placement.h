// Which replica should serve a cluster when several share the journal in etcd (docs/ha.md):
// rendezvous, or highest-random-weight, hashing (Thaler and Ravishankar, "Using name-based
// mappings to increase hit rates", IEEE/ACM ToN 1998). Each cluster goes to the replica whose
// weight with the cluster's name is highest, so every replica computes the same placement from
// the same list of replicas without talking to the others; a replica that joins takes about 1/n
// of the clusters, each from whichever replica had it, and one that leaves gives away only its
// own. The weight is a fixed function of the two names (FNV-1a, then SplitMix64's finalizer), the
// same in every build, so that replicas of different versions agree during a rolling upgrade.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace resched::server {

// The weight of `replica` for `cluster`.
std::uint64_t PlacementWeight(absl::string_view replica, absl::string_view cluster);

// The replica of `replicas` with the highest weight for `cluster` (ties: the smaller id); empty
// when there is none.
std::string PlacementOf(absl::string_view cluster, const std::vector<std::string>& replicas);

}  // namespace resched::server
