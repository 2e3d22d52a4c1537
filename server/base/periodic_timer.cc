#include "server/base/periodic_timer.h"

#include <utility>

namespace resched::server {

PeriodicTimer::PeriodicTimer(std::chrono::milliseconds period, std::function<void()> tick)
    : period_(period), tick_(std::move(tick)), thread_([this] { Run(); }) {}

PeriodicTimer::~PeriodicTimer() { Stop(); }

void PeriodicTimer::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeriodicTimer::Run() {
  while (true) {
    {
      MutexLock lock(&mu_);
      // A wake-up before the period is over is a Stop (or spurious: the next tick comes early).
      if (!stopping_) mu_.WaitFor(wake_, period_);
      if (stopping_) return;
    }
    tick_();
  }
}

}  // namespace resched::server
