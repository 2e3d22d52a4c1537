#include "core/model/runtime_model.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace resched {
namespace {

constexpr int kMaxWidth = 1 << 24;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

absl::Status CheckPositiveDuration(const char* field, Duration d) {
  if (d <= 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must be > 0 microseconds, got %d", field, d));
  }
  return absl::OkStatus();
}

absl::Status CheckRange(const char* prefix, int k_min, int k_max) {
  if (k_min < 1 || k_min > kMaxWidth) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.k_min must be in [1, %d], got %d", prefix, kMaxWidth, k_min));
  }
  if (k_max != 0 && (k_max < k_min || k_max > kMaxWidth)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.k_max must be 0 (cluster size) or in [k_min=%d, %d], got %d", prefix,
                        k_min, kMaxWidth, k_max));
  }
  return absl::OkStatus();
}

std::vector<int> RangeWidths(int k_min, int k_max, int capacity) {
  const int hi = k_max == 0 ? capacity : std::min(k_max, capacity);
  std::vector<int> widths;
  for (int k = k_min; k <= hi; ++k) widths.push_back(k);
  return widths;
}

Duration FromSeconds(double seconds) { return CeilMicros(seconds); }

// Most square grid r x c = p with r <= c.
int GridRows(int p) {
  int r = static_cast<int>(std::sqrt(static_cast<double>(p)));
  while (r > 1 && p % r != 0) --r;
  return std::max(r, 1);
}

}  // namespace

double DowneySpeedup(double a, double sigma, int n_int) {
  const double n = n_int;
  if (n_int <= 1) return 1.0;
  if (sigma <= 1.0) {
    if (n <= a) return a * n / (a + sigma * (n - 1) / 2);
    if (n <= 2 * a - 1) return a * n / (sigma * (a - 0.5) + n * (1 - sigma / 2));
    return a;
  }
  if (n <= a + a * sigma - sigma) return n * a * (sigma + 1) / (sigma * (n + a - 1) + a);
  return a;
}

absl::Status RuntimeModel::Validate() const {
  return std::visit(
      Overloaded{
          [](const TableModel& m) -> absl::Status {
            if (m.entries.empty()) return absl::InvalidArgumentError("table.entries is empty");
            int previous = 0;
            for (size_t i = 0; i < m.entries.size(); ++i) {
              const auto& e = m.entries[i];
              if (e.k <= previous || e.k > kMaxWidth) {
                return absl::InvalidArgumentError(absl::StrFormat(
                    "table.entries[%d].k must be in (%d, %d] (strictly increasing), got %d", i,
                    previous, kMaxWidth, e.k));
              }
              if (e.time <= 0) {
                return absl::InvalidArgumentError(absl::StrFormat(
                    "table.entries[%d].time must be > 0 microseconds, got %d", i, e.time));
              }
              previous = e.k;
            }
            return absl::OkStatus();
          },
          [](const AmdahlModel& m) -> absl::Status {
            if (auto s = CheckPositiveDuration("amdahl.t1", m.t1); !s.ok()) return s;
            if (!(m.alpha >= 0 && m.alpha <= 1)) {
              return absl::InvalidArgumentError(
                  absl::StrFormat("amdahl.alpha must be in [0, 1], got %g", m.alpha));
            }
            return CheckRange("amdahl", m.k_min, m.k_max);
          },
          [](const DowneyModel& m) -> absl::Status {
            if (auto s = CheckPositiveDuration("downey.t1", m.t1); !s.ok()) return s;
            if (!(m.a >= 1 && m.a <= kMaxWidth)) {
              return absl::InvalidArgumentError(
                  absl::StrFormat("downey.a must be in [1, %d], got %g", kMaxWidth, m.a));
            }
            if (!(m.sigma >= 0 && m.sigma <= 1e6)) {
              return absl::InvalidArgumentError(
                  absl::StrFormat("downey.sigma must be in [0, 1e6], got %g", m.sigma));
            }
            return CheckRange("downey", m.k_min, m.k_max);
          },
          [](const RigidModel& m) -> absl::Status {
            if (m.k < 1 || m.k > kMaxWidth) {
              return absl::InvalidArgumentError(
                  absl::StrFormat("rigid.k must be in [1, %d], got %d", kMaxWidth, m.k));
            }
            return CheckPositiveDuration("rigid.time", m.time);
          },
          [](const PowerOfTwoModel& m) -> absl::Status {
            if (m.times.empty() || m.times.size() > 24) {
              return absl::InvalidArgumentError(absl::StrFormat(
                  "power_of_two.times must have 1 to 24 entries, got %d", m.times.size()));
            }
            for (size_t i = 0; i < m.times.size(); ++i) {
              if (m.times[i] <= 0) {
                return absl::InvalidArgumentError(absl::StrFormat(
                    "power_of_two.times[%d] must be > 0 microseconds, got %d", i, m.times[i]));
              }
            }
            return absl::OkStatus();
          },
          [](const CeilModel& m) -> absl::Status {
            if (m.req_procs < 1 || m.req_procs > kMaxWidth) {
              return absl::InvalidArgumentError(absl::StrFormat(
                  "ceil.req_procs must be in [1, %d], got %d", kMaxWidth, m.req_procs));
            }
            return CheckPositiveDuration("ceil.req_time", m.req_time);
          },
          [](const CommunicationModel& m) -> absl::Status {
            if (!(m.flops > 0)) {
              return absl::InvalidArgumentError(
                  absl::StrFormat("communication.flops must be > 0, got %g", m.flops));
            }
            if (!(m.processor_speed > 0)) {
              return absl::InvalidArgumentError(absl::StrFormat(
                  "communication.processor_speed must be > 0 flop/s, got %g", m.processor_speed));
            }
            if (!(m.matrix_size >= 0) || !(m.latency_s >= 0)) {
              return absl::InvalidArgumentError(
                  "communication.matrix_size and communication.latency_s must be >= 0");
            }
            if (m.matrix_size > 0 && !(m.bandwidth > 0)) {
              return absl::InvalidArgumentError(absl::StrFormat(
                  "communication.bandwidth must be > 0 elements/s when matrix_size > 0, got %g",
                  m.bandwidth));
            }
            return CheckRange("communication", m.k_min, m.k_max);
          },
      },
      params_);
}

std::vector<int> RuntimeModel::Widths(int capacity) const {
  return std::visit(
      Overloaded{
          [&](const TableModel& m) {
            std::vector<int> widths;
            for (const auto& e : m.entries) {
              if (e.k <= capacity) widths.push_back(e.k);
            }
            return widths;
          },
          [&](const AmdahlModel& m) { return RangeWidths(m.k_min, m.k_max, capacity); },
          [&](const DowneyModel& m) { return RangeWidths(m.k_min, m.k_max, capacity); },
          [&](const RigidModel& m) {
            return m.k <= capacity ? std::vector<int>{m.k} : std::vector<int>{};
          },
          [&](const PowerOfTwoModel& m) {
            std::vector<int> widths;
            for (size_t i = 0; i < m.times.size() && (1 << i) <= capacity; ++i) {
              widths.push_back(1 << i);
            }
            return widths;
          },
          [&](const CeilModel& m) { return RangeWidths(1, m.req_procs, capacity); },
          [&](const CommunicationModel& m) { return RangeWidths(m.k_min, m.k_max, capacity); },
      },
      params_);
}

Duration RuntimeModel::TimeOn(int k) const { return OnThisSpeed(ReferenceTimeOn(k)); }

RuntimeModel RuntimeModel::OnSpeed(double speed) const {
  RuntimeModel model = *this;
  model.speed_ = speed;
  return model;
}

Duration RuntimeModel::ReferenceTimeOn(int k) const {
  return std::visit(Overloaded{
                        [&](const TableModel& m) -> Duration {
                          for (const auto& e : m.entries) {
                            if (e.k == k) return e.time;
                          }
                          return 0;
                        },
                        // aida-casanova §3.1.
                        [&](const AmdahlModel& m) {
                          const double t1 = static_cast<double>(m.t1) / kMicrosPerSecond;
                          return FromSeconds(t1 * (m.alpha + (1 - m.alpha) / k));
                        },
                        [&](const DowneyModel& m) {
                          const double t1 = static_cast<double>(m.t1) / kMicrosPerSecond;
                          return FromSeconds(t1 / DowneySpeedup(m.a, m.sigma, k));
                        },
                        [&](const RigidModel& m) { return m.time; },
                        [&](const PowerOfTwoModel& m) -> Duration {
                          for (size_t i = 0; i < m.times.size(); ++i) {
                            if ((1 << i) == k) return m.times[i];
                          }
                          return 0;
                        },
                        [&](const CeilModel& m) {
                          return static_cast<Duration>((m.req_procs + k - 1) / k) * m.req_time;
                        },
                        [&](const CommunicationModel& m) {
                          double seconds = m.flops / (k * m.processor_speed);
                          if (k > 1) {
                            const int rows = GridRows(k);
                            const int cols = k / rows;
                            seconds += m.latency_s;
                            if (m.matrix_size > 0) {
                              seconds +=
                                  m.matrix_size * m.matrix_size * (rows + cols - 2) / m.bandwidth;
                            }
                          }
                          return FromSeconds(seconds);
                        },
                    },
                    params_);
}

Duration RuntimeModel::SequentialTime() const {
  return OnThisSpeed(std::visit(
      Overloaded{
          [&](const AmdahlModel& m) { return m.t1; },
          [&](const DowneyModel& m) { return m.t1; },
          [&](const CeilModel& m) { return static_cast<Duration>(m.req_procs) * m.req_time; },
          // A range model: its smallest width directly (listing 2^24 widths costs 64 MB).
          [&](const CommunicationModel& m) { return ReferenceTimeOn(m.k_min) * m.k_min; },
          [&](const auto&) -> Duration {
            const auto widths = Widths(kMaxWidth);
            if (widths.empty()) return 0;
            return ReferenceTimeOn(widths.front()) * widths.front();
          },
      },
      params_));
}

MonotonyReport RuntimeModel::CheckMonotony(int capacity) const {
  MonotonyReport report;
  const auto widths = Widths(capacity);
  for (size_t i = 1; i < widths.size(); ++i) {
    const Duration prev = TimeOn(widths[i - 1]);
    const Duration cur = TimeOn(widths[i]);
    if (report.time_non_increasing && cur > prev) {
      report.time_non_increasing = false;
      report.first_time_violation_k = widths[i];
    }
    // Work compared exactly in integers; a microsecond of rounding is not a violation.
    const __int128 prev_work = static_cast<__int128>(prev) * widths[i - 1];
    const __int128 cur_work = static_cast<__int128>(cur + 1) * widths[i];
    if (report.work_non_decreasing && cur_work < prev_work) {
      report.work_non_decreasing = false;
      report.first_work_violation_k = widths[i];
    }
  }
  return report;
}

std::string RuntimeModel::KindName() const {
  return std::visit(Overloaded{
                        [](const TableModel&) { return std::string("table"); },
                        [](const AmdahlModel&) { return std::string("amdahl"); },
                        [](const DowneyModel&) { return std::string("downey"); },
                        [](const RigidModel&) { return std::string("rigid"); },
                        [](const PowerOfTwoModel&) { return std::string("power_of_two"); },
                        [](const CeilModel&) { return std::string("ceil"); },
                        [](const CommunicationModel&) { return std::string("communication"); },
                    },
                    params_);
}

}  // namespace resched
