// cpp-httplib's server with the limits a port open to strangers needs, which cpp-httplib 0.11
// does not have: its thread pool queues connections without bound, a request's head may take
// forever to arrive (each read waits 5 s, and a client sending a byte every 4 s holds a thread
// indefinitely), and the head may have any number of lines, of any shape, in any size.
//
// Here a connection is served by a fixed set of threads; connections that would wait beyond a
// bound, or that would give one peer address more than its share of the threads, are closed at
// once. A request's head (request line and header fields) must arrive whole within a deadline,
// within a size, with a bounded number of fields, each a NAME: VALUE line; else the connection
// is answered 408, 431 or 400 and closed. Its body must follow within a second deadline.
// cpp-httplib still parses everything: this class only owns the socket reads and the connection
// loop (process_and_close_socket).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "server/base/mutex.h"
#include "server/base/worker_pool.h"
#include "server/web/http_reply.h"

namespace resched::server::web {

struct ConnectionLimits {
  int threads = 48;                                 // connections served at once
  std::size_t max_waiting = 64;                     // accepted connections waiting for a thread
  int max_per_peer = 32;                            // connections of one peer address being served
  std::chrono::milliseconds head_deadline{10'000};  // a request's head, first byte to last
  // A request's head and body, first byte to last: a body a byte at a time ends there.
  std::chrono::milliseconds request_deadline{60'000};
  std::size_t max_head_bytes = 64 << 10;
  std::size_t max_header_fields = 100;
};

// Why reading a request was stopped (its head before cpp-httplib parsed it, or its body).
struct ReadRefusal {
  int http_status = 400;  // 408 late, 431 too large or too many fields, 400 malformed
  std::string message;
};

// What the connections have met so far, for tests and the operator.
struct ConnectionCounts {
  std::int64_t served = 0;
  std::int64_t refused_busy = 0;      // no thread and no room to wait
  std::int64_t refused_per_peer = 0;  // the peer had max_per_peer open
  std::int64_t reads_refused = 0;     // a head late, too large, too many fields or malformed;
                                      // a body late
  std::int64_t peak_per_peer = 0;     // the most connections one peer had served at once
};

class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(const ConnectionLimits& limits);
  ~GuardedServer() override;

  // Called with each request once its head has arrived, before routing. An answer refuses the
  // request unread, and its connection ends after the answer (where the next request would
  // begin is unknown).
  void set_request_check(std::function<std::optional<HttpReply>(const httplib::Request&)> check) {
    check_ = std::move(check);
  }
  // The answer to a request whose reading was stopped.
  void set_read_refusal_answer(std::function<HttpReply(const ReadRefusal&)> answer) {
    read_refusal_answer_ = std::move(answer);
  }
  // Refused requests are answered before routing, by this class.
  void set_pre_routing_handler(HandlerWithResponse) = delete;

  // After bind_to_port: cpp-httplib listens with a backlog of 5, so that a burst of connections
  // would wait for the client's SYN retries (a second or more) instead of reaching the checks
  // above. False when the socket refuses.
  bool WidenListenBacklog();

  ConnectionCounts counts() const ABSL_LOCKS_EXCLUDED(mu_);

  // The socket of the connection the calling thread serves (in a handler or a content provider),
  // or -1 off a connection thread: a long answer (a page's event stream) watches it for the
  // client's leaving.
  static socket_t ServingSocket();

  class SocketStream;
  class Stream;
  class ReplayStream;

 private:
  bool process_and_close_socket(socket_t sock) override;
  // On a connection thread: serves `sock`, then closes it.
  void ServeAndClose(socket_t sock);
  // Serves one connection's requests until it closes, the keep-alive limits end it, a request is
  // refused, or the server stops.
  void Serve(socket_t sock);
  bool WaitForRequest(socket_t sock) const;  // keep-alive: the next request's first byte
  std::chrono::milliseconds WriteTimeout() const {
    return std::chrono::milliseconds(write_timeout_sec_ * 1000 + write_timeout_usec_ / 1000);
  }
  // Sends the read refusal's answer on `sock`, through cpp-httplib's writer, as the answer to a
  // stand-in request.
  void AnswerReadRefusal(socket_t sock, const ReadRefusal& refusal);
  // Files `answer` for `request`, which the pre-routing handler sends.
  void Refuse(httplib::Request& request, HttpReply answer) ABSL_LOCKS_EXCLUDED(mu_);
  // The pre-routing handler: sends the answer filed for `request`, if any.
  HandlerResponse AnswerIfRefused(const httplib::Request& request, httplib::Response& response)
      ABSL_LOCKS_EXCLUDED(mu_);
  void ForgetRefusal(const httplib::Request* request) ABSL_LOCKS_EXCLUDED(mu_);
  bool AdmitPeer(const std::string& peer) ABSL_LOCKS_EXCLUDED(mu_);
  void ReleasePeer(const std::string& peer) ABSL_LOCKS_EXCLUDED(mu_);

  const ConnectionLimits limits_;
  std::function<std::optional<HttpReply>(const httplib::Request&)> check_;
  std::function<HttpReply(const ReadRefusal&)> read_refusal_answer_;
  // The threads serving connections, from listen to its end. Only the accepting thread touches
  // the pointer: it makes the pool, posts each connection and joins the pool at the end.
  std::unique_ptr<WorkerPool> connection_threads_;
  mutable Mutex mu_;
  std::map<std::string, int> per_peer_ ABSL_GUARDED_BY(mu_);
  ConnectionCounts counts_ ABSL_GUARDED_BY(mu_);
  // The answers of requests refused by the check or standing in for a read refusal, from the
  // check to the pre-routing handler. A request is known by its address, which cpp-httplib keeps
  // for the whole of process_request; Serve forgets the entry when that returns.
  absl::flat_hash_map<const httplib::Request*, HttpReply> refused_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server::web
