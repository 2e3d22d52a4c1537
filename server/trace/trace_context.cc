#include "server/trace/trace_context.h"

#include <algorithm>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace resched::server::trace {
namespace {

bool IsLowerHex(absl::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

template <size_t N>
bool AllZero(const std::array<std::uint8_t, N>& id) {
  return std::all_of(id.begin(), id.end(), [](std::uint8_t b) { return b == 0; });
}

template <size_t N>
std::array<std::uint8_t, N> FromHex(absl::string_view hex) {
  const std::string bytes = absl::HexStringToBytes(hex);
  std::array<std::uint8_t, N> id{};
  std::copy_n(bytes.begin(), N, id.begin());
  return id;
}

template <size_t N>
std::string Hex(const std::array<std::uint8_t, N>& id) {
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(id.data()), id.size()));
}

template <size_t N>
std::array<std::uint8_t, N> RandomId() {
  thread_local absl::BitGen bits;
  std::array<std::uint8_t, N> id{};
  do {
    for (auto& b : id) b = absl::Uniform<std::uint8_t>(bits);
  } while (AllZero(id));
  return id;
}

}  // namespace

std::optional<SpanContext> ParseTraceparent(absl::string_view header) {
  const std::vector<absl::string_view> parts = absl::StrSplit(header, '-');
  if (parts.size() < 4 || parts[0].size() != 2 || parts[1].size() != 32 || parts[2].size() != 16 ||
      parts[3].size() != 2) {
    return std::nullopt;
  }
  // Version 00 has exactly four parts; a later version may append more.
  if (parts[0] == "00" && parts.size() != 4) return std::nullopt;
  for (int i = 0; i < 4; ++i) {
    if (!IsLowerHex(parts[i])) return std::nullopt;
  }
  if (parts[0] == "ff") return std::nullopt;
  SpanContext context;
  context.trace_id = FromHex<16>(parts[1]);
  context.span_id = FromHex<8>(parts[2]);
  if (AllZero(context.trace_id) || AllZero(context.span_id)) return std::nullopt;
  const std::string flags = absl::HexStringToBytes(parts[3]);
  context.sampled = (static_cast<std::uint8_t>(flags[0]) & 0x01) != 0;
  return context;
}

std::string FormatTraceparent(const SpanContext& context) {
  return absl::StrCat("00-", Hex(context.trace_id), "-", Hex(context.span_id),
                      context.sampled ? "-01" : "-00");
}

TraceId NewTraceId() { return RandomId<16>(); }
SpanId NewSpanId() { return RandomId<8>(); }
std::string ToHex(const TraceId& id) { return Hex(id); }
std::string ToHex(const SpanId& id) { return Hex(id); }
bool IsZero(const SpanId& id) { return AllZero(id); }

}  // namespace resched::server::trace
