// An answer of the web view, apart from cpp-httplib's Response: what a route, a refusal or an
// error handler hands over to be sent.
#pragma once

#include <httplib.h>

#include <string>

namespace resched::server::web {

// JSON with its charset spelled out. cpp-httplib compresses a response whose type is exactly
// "application/json" with Brotli at its highest quality when the browser accepts it: 9 s for the
// 5 MB schedule of 10k jobs, against 0.3 s to produce it (bench/web_render_bench.cc). Large
// answers are gzipped at zlib's fastest level instead (server/web/compression.h).
inline constexpr char kJsonContentType[] = "application/json; charset=utf-8";

struct HttpReply {
  int status = 200;
  std::string content_type = kJsonContentType;
  std::string body;
};

// Puts `reply` in `response`, never to be cached.
inline void SendReply(const HttpReply& reply, httplib::Response& response) {
  response.status = reply.status;
  response.set_header("Cache-Control", "no-store");
  response.set_content(reply.body, reply.content_type);
}

}  // namespace resched::server::web
