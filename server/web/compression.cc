#include "server/web/compression.h"

#include <zlib.h>

#include <limits>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

bool AcceptsGzip(std::string_view accept_encoding) {
  const absl::string_view header(accept_encoding.data(), accept_encoding.size());
  for (absl::string_view coding : absl::StrSplit(header, ',')) {
    const std::vector<absl::string_view> parts = absl::StrSplit(coding, ';');
    const std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(parts[0]));
    if (name != "gzip" && name != "*") continue;
    bool refused = false;  // "q=0": not acceptable (RFC 9110 §12.5.3)
    for (std::size_t i = 1; i < parts.size(); ++i) {
      absl::string_view parameter = absl::StripAsciiWhitespace(parts[i]);
      double q = 1;
      if (absl::ConsumePrefix(&parameter, "q=") && absl::SimpleAtod(parameter, &q) && q <= 0) {
        refused = true;
      }
    }
    if (!refused) return true;
  }
  return false;
}

std::optional<std::string> GzipFast(std::string_view data) {
  if (data.size() > std::numeric_limits<uInt>::max()) return std::nullopt;
  z_stream stream{};
  // 15 + 16: a 32 KiB window with a gzip header and trailer instead of zlib's.
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::nullopt;
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(data.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);  // deflateBound leaves room for all of it
  const std::size_t written = stream.total_out;
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return std::nullopt;
  out.resize(written);
  return out;
}

void GzipJsonAnswer(const httplib::Request& request, httplib::Response& response) {
  if (response.body.size() < kGzipFromBytes || response.has_header("Content-Encoding") ||
      response.get_header_value("Content-Type") != kJsonContentType ||
      !AcceptsGzip(request.get_header_value("Accept-Encoding"))) {
    return;
  }
  std::optional<std::string> gzipped = GzipFast(response.body);
  if (!gzipped) return;  // sent as it is
  response.body = *std::move(gzipped);
  // cpp-httplib runs this handler after it has set the length of the body as it was.
  response.headers.erase("Content-Length");
  response.set_header("Content-Length", std::to_string(response.body.size()));
  response.set_header("Content-Encoding", "gzip");
  response.set_header("Vary", "Accept-Encoding");
}

}  // namespace resched::server::web
