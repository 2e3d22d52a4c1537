// The timelines the timeline benchmarks run on: n reservations of the mix below over a horizon
// proportional to n, so that the profile looks the same at every size, and random requests.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "core/timeline/timeline.h"

namespace resched {

inline constexpr int kCapacity = 1024;
inline constexpr Duration kMinDuration = 100;
inline constexpr Duration kMaxDuration = 10'000;

// Widths: mostly narrow jobs, some wide ones, a few nearly whole-cluster ones.
int RandomWidth(std::mt19937_64& rng);
Duration RandomDuration(std::mt19937_64& rng);

struct Request {
  Time start;
  Duration d;
  int k;
};

struct Fixture {
  Time horizon = 0;
  std::unique_ptr<Timeline> timeline;
  std::vector<ReservationId> ids;  // live reservations, for Remove
  std::vector<Allocation> params;  // same order as ids
  std::vector<Request> requests;   // random requests over the horizon (the mix)
  std::vector<Request> narrow;     // the same with widths <= 256
  std::vector<Request> wide;       // the same with widths > 256
  // Widths of the mix, durations 2-20 times the longest reservation: a long job among short
  // ones, whose search crosses many gaps that are each too short for it.
  std::vector<Request> long_requests;
};

// Built once per size and shared by every benchmark of the process.
Fixture& GetFixture(std::int64_t n);

// A scheduler's backlog: n jobs (1-32 of 64 processors, 1 minute to 2 hours) each booked at
// its earliest start from 0, as conservative backfilling books a queue. The profile is packed
// up to the end of the backlog, with holes too small for most requests; `requests` are jobs of
// the same kind searched from 0, as the moldable width loop of a new submission searches.
struct Backlog {
  std::unique_ptr<Timeline> timeline;
  std::vector<Request> requests;
};
Backlog& GetBacklog(std::int64_t n);

}  // namespace resched
