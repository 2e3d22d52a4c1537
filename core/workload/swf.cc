#include "core/workload/swf.h"

#include <array>
#include <charconv>
#include <cmath>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace resched {
namespace {

constexpr std::array<const char*, kSwfFieldCount> kFieldNames = {"job number",
                                                                 "submit time",
                                                                 "wait time",
                                                                 "run time",
                                                                 "allocated processors",
                                                                 "average CPU time",
                                                                 "used memory",
                                                                 "requested processors",
                                                                 "requested time",
                                                                 "requested memory",
                                                                 "status",
                                                                 "user id",
                                                                 "group id",
                                                                 "executable number",
                                                                 "queue number",
                                                                 "partition number",
                                                                 "preceding job number",
                                                                 "think time"};

// Integer fields by 0-based index; nullptr marks the two fractional fields (6 and 7).
constexpr std::array<std::int64_t SwfRecord::*, kSwfFieldCount> kIntFields = {
    &SwfRecord::job_number,
    &SwfRecord::submit_time,
    &SwfRecord::wait_time,
    &SwfRecord::run_time,
    &SwfRecord::allocated_processors,
    nullptr,
    nullptr,
    &SwfRecord::requested_processors,
    &SwfRecord::requested_time,
    &SwfRecord::requested_memory,
    &SwfRecord::status,
    &SwfRecord::user_id,
    &SwfRecord::group_id,
    &SwfRecord::executable,
    &SwfRecord::queue,
    &SwfRecord::partition,
    &SwfRecord::preceding_job,
    &SwfRecord::think_time};

constexpr int kMaxDecimals = 17;

// Local helpers: Debian's absl::string_view is not std::string_view.
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string_view StripLeft(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view Strip(std::string_view s) {
  s = StripLeft(s);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitWhitespace(std::string_view s) {
  std::vector<std::string_view> tokens;
  while (true) {
    s = StripLeft(s);
    if (s.empty()) return tokens;
    std::size_t end = 0;
    while (end < s.size() && !IsSpace(s[end])) ++end;
    tokens.push_back(s.substr(0, end));
    s.remove_prefix(end);
  }
}

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string FieldLabel(int index0) {
  return absl::StrCat("field ", index0 + 1, " (", kFieldNames[index0], ")");
}

absl::Status ParseInt(std::string_view token, int index0, std::int64_t& value) {
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec == std::errc::result_out_of_range) {
    return absl::InvalidArgumentError(absl::StrCat(FieldLabel(index0), " is out of range (max ",
                                                   INT64_MAX, "): '", std::string(token), "'"));
  }
  if (ec != std::errc() || ptr != end) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldLabel(index0), " must be an integer, got '", std::string(token), "'"));
  }
  if (value < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldLabel(index0), " must be >= -1 (-1: unknown), got ", value));
  }
  return absl::OkStatus();
}

absl::Status ParseDecimal(std::string_view token, int index0, double& value,
                          std::int8_t& decimals) {
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
    return absl::InvalidArgumentError(absl::StrCat(
        FieldLabel(index0), " must be a finite number, got '", std::string(token), "'"));
  }
  if (value < -1) {
    return absl::InvalidArgumentError(absl::StrCat(
        FieldLabel(index0), " must be >= -1 (-1: unknown), got '", std::string(token), "'"));
  }
  decimals = 0;
  const std::size_t dot = token.find('.');
  if (token.find_first_of("eE") != std::string_view::npos) {
    decimals = -1;  // exponent notation: written back in its shortest exact form
  } else if (dot != std::string_view::npos) {
    const std::size_t count = token.size() - dot - 1;
    decimals = count > kMaxDecimals ? -1 : static_cast<std::int8_t>(count);
  }
  return absl::OkStatus();
}

absl::StatusOr<SwfRecord> ParseDataLine(std::string_view line) {
  const std::vector<std::string_view> tokens = SplitWhitespace(line);
  if (tokens.size() != kSwfFieldCount) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", kSwfFieldCount, " fields, got ", tokens.size()));
  }
  SwfRecord record;
  for (int i = 0; i < kSwfFieldCount; ++i) {
    absl::Status status;
    if (kIntFields[i] != nullptr) {
      status = ParseInt(tokens[i], i, record.*kIntFields[i]);
    } else if (i == 5) {
      status =
          ParseDecimal(tokens[i], i, record.average_cpu_time, record.average_cpu_time_decimals);
    } else {
      status = ParseDecimal(tokens[i], i, record.used_memory, record.used_memory_decimals);
    }
    if (!status.ok()) return status;
  }
  return record;
}

// "; Key: value" -> (Key, value); continuation lines ("; text") and bare ";" give nothing.
std::optional<std::pair<std::string, std::string>> ParseHeaderField(std::string_view line) {
  std::string_view body = Strip(line.substr(1));
  const std::size_t colon = body.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const std::string_view key = body.substr(0, colon);
  // Header keys are capitalized words ("MaxProcs"); this also rejects continuation lines that hold
  // a URL ("http://...").
  if (!(key.front() >= 'A' && key.front() <= 'Z')) return std::nullopt;
  for (char c : key) {
    if (!IsKeyChar(c)) return std::nullopt;
  }
  return std::make_pair(std::string(key), std::string(Strip(body.substr(colon + 1))));
}

std::string FormatDecimal(double value, std::int8_t decimals) {
  if (decimals >= 0) return absl::StrFormat("%.*f", static_cast<int>(decimals), value);
  std::array<char, 64> buffer;
  const auto [ptr, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  if (ec != std::errc()) return absl::StrFormat("%.17g", value);
  return std::string(buffer.data(), ptr);
}

}  // namespace

const char* SwfFieldName(int index) {
  if (index < 1 || index > kSwfFieldCount) return "unknown field";
  return kFieldNames[index - 1];
}

std::optional<std::string> SwfLog::HeaderValue(std::string_view key) const {
  for (const auto& [k, v] : header_fields) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::optional<std::int64_t> SwfLog::HeaderInt(std::string_view key) const {
  const std::optional<std::string> value = HeaderValue(key);
  if (!value) return std::nullopt;
  std::int64_t result = 0;
  const char* begin = value->data();
  const auto [ptr, ec] = std::from_chars(begin, begin + value->size(), result);
  if (ec != std::errc() || ptr == begin) return std::nullopt;
  return result;
}

absl::StatusOr<SwfLog> ReadSwf(std::istream& in, const SwfReadOptions& options) {
  SwfLog log;
  std::string line;
  std::int64_t line_number = 0;
  constexpr std::size_t kMaxExamples = 10;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF files
    if (line.size() > kMaxSwfLineLength) {
      // Not skippable: such a line is not an SWF file at all.
      return absl::InvalidArgumentError(
          absl::StrCat("line ", line_number, ": longer than ", kMaxSwfLineLength, " characters"));
    }
    const std::string_view trimmed = StripLeft(line);
    if (trimmed.empty()) continue;
    if (trimmed.front() == ';') {
      if (auto field = ParseHeaderField(trimmed)) log.header_fields.push_back(*std::move(field));
      log.comments.push_back(line);
      continue;
    }
    absl::StatusOr<SwfRecord> record = ParseDataLine(trimmed);
    if (!record.ok()) {
      std::string message = absl::StrCat("line ", line_number, ": ", record.status().message());
      if (!options.lenient) return absl::InvalidArgumentError(message);
      ++log.malformed_lines;
      if (log.malformed_examples.size() < kMaxExamples) {
        log.malformed_examples.push_back(std::move(message));
      }
      continue;
    }
    log.records.push_back(*std::move(record));
    if (options.max_records > 0 &&
        static_cast<std::int64_t>(log.records.size()) >= options.max_records) {
      break;
    }
  }
  if (in.bad())
    return absl::DataLossError(absl::StrCat("reading line ", line_number + 1, " failed"));
  return log;
}

std::string FormatSwfRecord(const SwfRecord& r) {
  std::string line;
  for (int i = 0; i < kSwfFieldCount; ++i) {
    if (i > 0) line.push_back(' ');
    if (kIntFields[i] != nullptr) {
      absl::StrAppend(&line, r.*kIntFields[i]);
    } else if (i == 5) {
      line += FormatDecimal(r.average_cpu_time, r.average_cpu_time_decimals);
    } else {
      line += FormatDecimal(r.used_memory, r.used_memory_decimals);
    }
  }
  return line;
}

absl::Status WriteSwf(std::ostream& out, const SwfLog& log) {
  for (const std::string& comment : log.comments) out << comment << '\n';
  for (const SwfRecord& record : log.records) out << FormatSwfRecord(record) << '\n';
  if (!out) return absl::DataLossError("writing the SWF stream failed");
  return absl::OkStatus();
}

}  // namespace resched
