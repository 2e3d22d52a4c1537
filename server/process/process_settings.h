// Process-wide settings of a serving process (resched-server, and the benchmarks that measure
// the server as it runs), which the tests leave at their defaults.
#pragma once

namespace resched::server {

// Call once, before the service starts its threads.
void ApplyServingProcessSettings();

}  // namespace resched::server
