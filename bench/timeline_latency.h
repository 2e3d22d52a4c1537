// Per-operation latency distributions of the timeline (timeline_latency.cc).
#pragma once

namespace resched {

void RegisterLatencyBenchmarks();

}  // namespace resched
