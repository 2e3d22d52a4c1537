// gzip for the web view's larger JSON answers. cpp-httplib compresses only a response typed
// exactly "application/json", and then with Brotli at its highest quality (9 s for the 5 MB
// schedule of 10k jobs); these are gzipped at zlib's fastest level instead, which is most of
// the saving for a fraction of a second (docs/web.md).
#pragma once

#include <httplib.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace resched::server::web {

// Answers shorter than this go as they are: the header costs about what gzip would save.
inline constexpr std::size_t kGzipFromBytes = 1024;

// Whether an Accept-Encoding header value accepts gzip (a "gzip" or "*" coding without q=0).
bool AcceptsGzip(std::string_view accept_encoding);

// `data` as one gzip member (RFC 1952) at zlib's fastest level; nullopt if zlib fails.
std::optional<std::string> GzipFast(std::string_view data);

// Gzips a JSON answer of kGzipFromBytes or more for a client that accepts it, and says so in
// Content-Encoding (with Vary: Accept-Encoding). Streams, other types and answers that already
// name an encoding are left as they are.
void GzipJsonAnswer(const httplib::Request& request, httplib::Response& response);

}  // namespace resched::server::web
