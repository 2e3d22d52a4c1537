#include "client/durations.h"

#include <array>
#include <cctype>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"

namespace resched::cli {
namespace {

constexpr int64_t kSecond = 1'000'000;
// google.protobuf.Duration's limit: 10,000 years.
constexpr int64_t kMaxMicros = int64_t{315'576'000'000} * kSecond;

struct Unit {
  absl::string_view name;
  int64_t micros;
};
// Longest names first so that "ms" is not read as "m".
constexpr std::array<Unit, 7> kUnits = {{{"ms", 1'000},
                                         {"us", 1},
                                         {"\xC2\xB5s", 1},  // µs
                                         {"d", 86'400 * kSecond},
                                         {"h", 3'600 * kSecond},
                                         {"m", 60 * kSecond},
                                         {"s", kSecond}}};

absl::Status BadDuration(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid duration \"", text, "\": ", why,
                   " (examples: 90s, 5m, 1h30m, 1.5h, 250ms, 100us; a plain number is seconds)"));
}

// Reads "123.45" at the front of `s`; returns false when there is no number.
bool ReadNumber(absl::string_view* s, absl::string_view* whole, absl::string_view* frac) {
  size_t i = 0;
  while (i < s->size() && absl::ascii_isdigit((*s)[i])) ++i;
  *whole = s->substr(0, i);
  *frac = {};
  if (i < s->size() && (*s)[i] == '.') {
    size_t j = i + 1;
    while (j < s->size() && absl::ascii_isdigit((*s)[j])) ++j;
    *frac = s->substr(i + 1, j - i - 1);
    i = j;
  }
  if (whole->empty() && frac->empty()) return false;
  s->remove_prefix(i);
  return true;
}

// whole.frac * unit in microseconds, the fraction rounded up; false on overflow.
bool Scale(absl::string_view whole, absl::string_view frac, int64_t unit, int64_t* out) {
  __int128 v = 0;
  for (char c : whole) {
    v = v * 10 + (c - '0');
    if (v > kMaxMicros) return false;
  }
  v *= unit;
  __int128 num = 0, den = 1;
  for (char c : frac.substr(0, 18)) {
    num = num * 10 + (c - '0');
    den *= 10;
  }
  v += (num * unit + den - 1) / den;
  if (v > kMaxMicros) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

}  // namespace

absl::StatusOr<int64_t> ParseDuration(absl::string_view text) {
  absl::string_view s = absl::StripAsciiWhitespace(text);
  if (s.empty()) return BadDuration(text, "empty");
  if (s[0] == '-') return BadDuration(text, "negative");
  if (s[0] == '+') s.remove_prefix(1);
  int64_t total = 0;
  bool first = true;
  while (!s.empty()) {
    absl::string_view whole, frac;
    if (!ReadNumber(&s, &whole, &frac)) return BadDuration(text, "expected a number");
    int64_t unit = 0;
    if (s.empty() && first) {
      unit = kSecond;  // a plain number
    } else {
      for (const Unit& u : kUnits) {
        if (absl::StartsWith(s, u.name)) {
          unit = u.micros;
          s.remove_prefix(u.name.size());
          break;
        }
      }
      if (unit == 0) return BadDuration(text, "expected a unit (d, h, m, s, ms, us)");
    }
    int64_t part = 0;
    if (!Scale(whole, frac, unit, &part) || total + part > kMaxMicros) {
      return BadDuration(text, "longer than 10000 years");
    }
    total += part;
    first = false;
  }
  return total;
}

std::string FormatDuration(int64_t micros) {
  if (micros == 0) return "0s";
  std::string out;
  uint64_t v = micros;
  if (micros < 0) {
    out = "-";
    v = -static_cast<uint64_t>(micros);
  }
  if (v < 1'000) return absl::StrCat(out, v, "us");
  auto with_fraction = [](uint64_t units, uint64_t rest, int digits) {
    std::string s = absl::StrCat(units);
    if (rest != 0) {
      std::string f = absl::StrFormat("%0*d", digits, rest);
      while (!f.empty() && f.back() == '0') f.pop_back();
      absl::StrAppend(&s, ".", f);
    }
    return s;
  };
  if (v < static_cast<uint64_t>(kSecond)) {
    return absl::StrCat(out, with_fraction(v / 1'000, v % 1'000, 3), "ms");
  }
  uint64_t secs = v / kSecond, sub = v % kSecond;
  uint64_t days = secs / 86'400, hours = secs / 3'600 % 24, mins = secs / 60 % 60, s = secs % 60;
  if (days) absl::StrAppend(&out, days, "d");
  if (hours) absl::StrAppend(&out, hours, "h");
  if (mins) absl::StrAppend(&out, mins, "m");
  if (s || sub) absl::StrAppend(&out, with_fraction(s, sub, 6), "s");
  return out;
}

bool TimeNeedsNow(absl::string_view text) {
  absl::string_view s = absl::StripAsciiWhitespace(text);
  return s == "now" || absl::StartsWith(s, "+");
}

absl::StatusOr<int64_t> ParseTime(absl::string_view text,
                                  absl::FunctionRef<absl::StatusOr<int64_t>()> now) {
  absl::string_view s = absl::StripAsciiWhitespace(text);
  if (s == "now") return now();
  if (absl::StartsWith(s, "+")) {
    absl::StatusOr<int64_t> d = ParseDuration(s.substr(1));
    if (!d.ok()) return d.status();
    absl::StatusOr<int64_t> n = now();
    if (!n.ok()) return n.status();
    return *n + *d;
  }
  if (absl::StartsWith(s, "@")) {
    absl::string_view rest = s.substr(1);
    bool negative = absl::StartsWith(rest, "-");
    if (negative) rest.remove_prefix(1);
    absl::StatusOr<int64_t> d = ParseDuration(rest);
    if (!d.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid time \"", text, "\": after '@' expected seconds or a duration since the epoch"));
    }
    return negative ? -*d : *d;
  }
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, s, &t, &err)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid time \"", text,
                     "\": expected RFC 3339 (2026-11-22T10:00:00Z), @SECONDS since the epoch, "
                     "+DURATION from the cluster's now, or now"));
  }
  return absl::ToUnixMicros(t);
}

std::string FormatTime(int64_t micros, TimeStyle style) {
  if (style == TimeStyle::kSimulated) return absl::StrCat("@", FormatDuration(micros));
  // Whole seconds: readable, and --json has the exact value.
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%SZ", absl::FromUnixMicros(micros),
                          absl::UTCTimeZone());
}

std::string FormatTime(bool present, const google::protobuf::Timestamp& ts, TimeStyle style) {
  return present ? FormatTime(ToMicros(ts), style) : "-";
}

int64_t ToMicros(const google::protobuf::Duration& d) {
  return d.seconds() * kSecond + d.nanos() / 1'000;
}

int64_t ToMicros(const google::protobuf::Timestamp& ts) {
  return ts.seconds() * kSecond + ts.nanos() / 1'000;  // nanos are in [0, 1e9)
}

google::protobuf::Duration ToProtoDuration(int64_t micros) {
  google::protobuf::Duration d;
  d.set_seconds(micros / kSecond);
  d.set_nanos(static_cast<int32_t>(micros % kSecond * 1'000));
  return d;
}

google::protobuf::Timestamp ToProtoTimestamp(int64_t micros) {
  google::protobuf::Timestamp ts;
  int64_t secs = micros / kSecond, rest = micros % kSecond;
  if (rest < 0) {
    rest += kSecond;
    --secs;
  }
  ts.set_seconds(secs);
  ts.set_nanos(static_cast<int32_t>(rest * 1'000));
  return ts;
}

}  // namespace resched::cli
