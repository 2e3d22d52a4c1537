#include "server/web/request_guard.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "transport/metadata_value.h"

namespace resched::server::web {
namespace {

HttpReply Refusal(int http_status, grpc::StatusCode code, const std::string& message) {
  HttpReply reply = ErrorReply(grpc::Status(code, message));
  reply.status = http_status;
  return reply;
}

HttpReply InvalidRequest(const std::string& message) {
  return Refusal(400, grpc::StatusCode::INVALID_ARGUMENT, message);
}

// The length of the UTF-8 sequence at text[i], or 0 when it is malformed (RFC 3629, table 3-7
// of the Unicode standard: the second byte's range depends on the first).
std::size_t Utf8SequenceLength(absl::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong form
    if (lead == 0xED) high = 0x9F;  // no surrogate
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong form
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

std::optional<HttpReply> RefuseText(absl::string_view what, absl::string_view text) {
  if (IsPrintableUtf8(text)) return std::nullopt;
  return InvalidRequest(
      absl::StrCat(what,
                   " must be printable UTF-8 (no control characters, no malformed "
                   "byte sequences)"));
}

// Several ranges are served only when each is closed (FIRST-LAST), they ascend and none
// overlaps: then the answer is never larger than the page it is cut from.
std::optional<HttpReply> RefuseRanges(const httplib::Ranges& ranges) {
  const auto refuse = [](const std::string& message) {
    return Refusal(416, grpc::StatusCode::OUT_OF_RANGE, message);
  };
  if (ranges.size() > kMaxByteRanges) {
    return refuse(absl::StrCat("the Range header asks for ", ranges.size(),
                               " byte ranges; the limit is ", kMaxByteRanges));
  }
  if (ranges.size() < 2) return std::nullopt;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const auto [first, last] = ranges[i];
    if (first < 0 || last < 0) {
      return refuse(
          "the Range header mixes an open-ended or suffix range with others; ask for it alone");
    }
    if (i > 0 && first <= ranges[i - 1].second) {
      return refuse(
          "the Range header's ranges overlap or do not ascend; ask for each byte once, in order");
    }
  }
  return std::nullopt;
}

}  // namespace

bool IsPrintableUtf8(absl::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7F) return false;
    const std::size_t length = Utf8SequenceLength(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::optional<HttpReply> RefuseRequest(const httplib::Request& request) {
  // The values as they came: get_header_value would stop at a NUL byte.
  const auto [first, last] = request.headers.equal_range("Authorization");
  if (const auto n = std::distance(first, last); n > 1) {
    return InvalidRequest(
        absl::StrCat("the Authorization header is given ", n, " times; send it once"));
  }
  if (first != last) {
    if (absl::Status legal =
            transport::CheckMetadataValue("the Authorization header", first->second);
        !legal.ok()) {
      return InvalidRequest(std::string(legal.message()));
    }
  }
  // A POST body without a length would be read until the client closes the connection.
  if (request.method == "POST" && !request.has_header("Content-Length") &&
      !request.has_header("Transfer-Encoding")) {
    return Refusal(411, grpc::StatusCode::INVALID_ARGUMENT,
                   "a POST needs a Content-Length header (or a chunked body)");
  }
  if (auto refused = RefuseText("the path", request.path)) return refused;
  for (const auto& [name, value] : request.params) {
    if (name == "access_token") {
      if (absl::Status legal = transport::CheckMetadataValue("query parameter 'access_token'",
                                                             absl::StrCat("Bearer ", value));
          !legal.ok()) {
        return InvalidRequest(std::string(legal.message()));
      }
    }
    if (auto refused = RefuseText("a query parameter's name", name)) return refused;
    if (auto refused = RefuseText(absl::StrCat("query parameter '", name, "'"), value)) {
      return refused;
    }
  }
  return RefuseRanges(request.ranges);
}

}  // namespace resched::server::web
