#include "server/app/cluster_placement.h"

namespace resched::server {
namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

std::uint64_t Fnv1a(std::uint64_t hash, absl::string_view bytes) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

// SplitMix64's finalizer: FNV-1a alone leaves the high bits of similar names alike.
std::uint64_t Mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace

std::uint64_t PlacementWeight(absl::string_view replica, absl::string_view cluster) {
  // The separator keeps ("ab", "c") and ("a", "bc") apart; neither name holds a NUL.
  std::uint64_t hash = Fnv1a(kFnvOffset, replica);
  hash = Fnv1a(hash, absl::string_view("\0", 1));
  return Mix(Fnv1a(hash, cluster));
}

std::string PlacementOf(absl::string_view cluster, const std::vector<std::string>& replicas) {
  const std::string* best = nullptr;
  std::uint64_t best_weight = 0;
  for (const std::string& replica : replicas) {
    const std::uint64_t weight = PlacementWeight(replica, cluster);
    if (best == nullptr || weight > best_weight || (weight == best_weight && replica < *best)) {
      best = &replica;
      best_weight = weight;
    }
  }
  return best != nullptr ? *best : std::string();
}

}  // namespace resched::server
