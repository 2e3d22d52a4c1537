#include "server/web/guarded_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <vector>

#include "absl/strings/str_cat.h"

namespace resched::server::web {
namespace {

void CloseConnection(socket_t sock) {
  shutdown(sock, SHUT_RDWR);
  close(sock);
}

// The connection the thread serves (GuardedServer::ServingSocket).
thread_local socket_t serving_socket = INVALID_SOCKET;

// A keep-alive wait looks this often whether the server is stopping.
constexpr int kStopCheckMillis = 50;
// After refusing a request, the rest of what the client sent is read and dropped for this long, at
// most this much, before the socket closes: closing with unread bytes sends a reset, which
// may reach the client before the refusal does and discard it there.
constexpr auto kLingerAfterRefusal = std::chrono::milliseconds(500);
constexpr std::size_t kLingerBytes = 256 << 10;

// cpp-httplib hands each accepted connection to a task queue. This one runs the hand-over on the
// accepting thread, so that process_and_close_socket, holding the socket, decides whether a
// thread can take it.
class InlineTaskQueue : public httplib::TaskQueue {
 public:
  explicit InlineTaskQueue(std::function<void()> on_shutdown)
      : on_shutdown_(std::move(on_shutdown)) {}

  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override { on_shutdown_(); }

 private:
  std::function<void()> on_shutdown_;
};

void AddressOf(socket_t sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  const int got = peer ? getpeername(sock, reinterpret_cast<sockaddr*>(&address), &length)
                       : getsockname(sock, reinterpret_cast<sockaddr*>(&address), &length);
  if (got != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<sockaddr_in*>(&address);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    port = ntohs(in->sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto* in = reinterpret_cast<sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &in->sin6_addr, text, sizeof(text));
    port = ntohs(in->sin6_port);
  }
  ip = text;
}

std::string PeerAddress(socket_t sock) {
  std::string ip;
  int port = 0;
  AddressOf(sock, true, ip, port);
  return ip;
}

// Waits until `sock` has `events` or `timeout` passes; false on timeout or error.
bool PollFor(socket_t sock, short events, std::chrono::milliseconds timeout) {
  pollfd entry{sock, events, 0};
  for (;;) {
    const int n = poll(&entry, 1, static_cast<int>(std::max<std::int64_t>(0, timeout.count())));
    if (n < 0 && errno == EINTR) continue;
    return n > 0;
  }
}

// Whether the client has closed its side of `sock` (or the connection broke).
bool PeerClosed(socket_t sock) {
  pollfd entry{sock, POLLIN | POLLRDHUP, 0};
  if (poll(&entry, 1, 0) <= 0) return false;
  if ((entry.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) return true;
  char byte = 0;
  return recv(sock, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

// One send of `size` bytes at most, once `sock` can take some within `timeout`; -1 otherwise.
// Sent at once where the socket has room (the usual case: one system call, not a poll first).
ssize_t SendOn(socket_t sock, const char* bytes, size_t size, std::chrono::milliseconds timeout) {
  ssize_t n;
  do {
    n = send(sock, bytes, size, MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return n;
  if (!PollFor(sock, POLLOUT, timeout)) return -1;
  do {
    n = send(sock, bytes, size, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n;
}

// A request line and head that cpp-httplib parses in place of one whose reading was refused, so
// that the refusal is answered through its writer.
constexpr char kStandInHead[] = "GET / HTTP/1.1\r\nConnection: close\r\n\r\n";

}  // namespace

// What both streams of a connection do alike: write to its socket, name its ends.
class GuardedServer::SocketStream : public httplib::Stream {
 public:
  SocketStream(socket_t sock, std::chrono::milliseconds write_timeout)
      : sock_(sock), write_timeout_(write_timeout) {}

  // Not once the client closed its side: an event stream's client sends nothing after its
  // request, so its leaving shows only here (cpp-httplib asks before each streamed write).
  bool is_writable() const override {
    return !PeerClosed(sock_) && PollFor(sock_, POLLOUT, write_timeout_);
  }
  ssize_t write(const char* ptr, size_t size) override {
    return SendOn(sock_, ptr, size, write_timeout_);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    AddressOf(sock_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    AddressOf(sock_, false, ip, port);
  }
  socket_t socket() const override { return sock_; }

 protected:
  const socket_t sock_;
  const std::chrono::milliseconds write_timeout_;
};

// One request's reads and writes on the connection's socket. While the head is read, every byte
// handed to cpp-httplib is counted against the head's deadline, size, lines and shape; every read
// of the request, body included, against the request's deadline.
class GuardedServer::Stream : public SocketStream {
 public:
  Stream(socket_t sock, const ConnectionLimits& limits, std::chrono::milliseconds read_timeout,
         std::chrono::milliseconds write_timeout)
      : SocketStream(sock, write_timeout),
        limits_(limits),
        read_timeout_(read_timeout),
        head_deadline_(std::chrono::steady_clock::now() + limits.head_deadline),
        request_deadline_(std::chrono::steady_clock::now() + limits.request_deadline) {}

  void EndHead() { in_head_ = false; }
  // Why reading was stopped, if it was. Once it is, nothing more is read, and what cpp-httplib
  // writes is dropped: the refusal is answered instead (GuardedServer::AnswerReadRefusal).
  const std::optional<ReadRefusal>& refusal() const { return refusal_; }

  bool is_readable() const override {
    return buffered_ < filled_ || PollFor(sock_, POLLIN, ReadWait());
  }
  ssize_t read(char* ptr, size_t size) override {
    if (refusal_) return -1;
    if (buffered_ == filled_) {
      if (Late()) return RefuseLate();
      if (!PollFor(sock_, POLLIN, ReadWait())) {
        if (Late()) return RefuseLate();
        return Refuse(408, absl::StrCat("nothing of the request arrived for ",
                                        read_timeout_.count(), " ms, the limit"));
      }
      ssize_t n;
      do {
        n = recv(sock_, buffer_.data(), buffer_.size(), 0);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      buffered_ = 0;
      filled_ = static_cast<size_t>(n);
    }
    const size_t n = std::min(size, filled_ - buffered_);
    if (in_head_ && !ScanHead(buffer_.data() + buffered_, n)) return -1;
    std::copy_n(buffer_.data() + buffered_, n, ptr);
    buffered_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (refusal_) return static_cast<ssize_t>(size);
    return SocketStream::write(ptr, size);
  }

 private:
  std::chrono::steady_clock::time_point Deadline() const {
    return in_head_ ? std::min(head_deadline_, request_deadline_) : request_deadline_;
  }
  bool Late() const { return std::chrono::steady_clock::now() >= Deadline(); }
  ssize_t RefuseLate() {
    return Refuse(408, in_head_ ? absl::StrCat("the request's head did not arrive within ",
                                               limits_.head_deadline.count(), " ms, the limit")
                                : absl::StrCat("the request's body did not arrive within ",
                                               limits_.request_deadline.count(),
                                               " ms of its first byte, the limit"));
  }
  std::chrono::milliseconds ReadWait() const {
    // Rounded up: a wait that ends before the deadline would look like a plain read timeout.
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(Deadline() - std::chrono::steady_clock::now());
    return std::clamp(left, std::chrono::milliseconds(0), read_timeout_);
  }

  ssize_t Refuse(int http_status, std::string message) {
    refusal_ = ReadRefusal{http_status, std::move(message)};
    return -1;
  }

  // False (and the head refused) when `bytes`, the head's next ones, break one of its limits.
  bool ScanHead(const char* bytes, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const char c = bytes[i];
      if (++head_bytes_ > limits_.max_head_bytes) {
        Refuse(431, absl::StrCat("the request's head is over ", limits_.max_head_bytes,
                                 " bytes, the limit"));
        return false;
      }
      if (c == '\n') {
        // Lines after the request line are NAME: VALUE fields, up to the empty line.
        if (line_length_ == 0) continue;  // the empty line: the head is whole
        if (lines_ > 0 && !line_has_colon_) {
          Refuse(400, absl::StrCat("header line ", lines_,
                                   " has no ':' between a name and "
                                   "a value"));
          return false;
        }
        if (++lines_ > limits_.max_header_fields + 1) {
          Refuse(431, absl::StrCat("the request has more than ", limits_.max_header_fields,
                                   " header fields, the limit"));
          return false;
        }
        line_length_ = 0;
        line_has_colon_ = false;
      } else if (c != '\r') {
        ++line_length_;
        line_has_colon_ = line_has_colon_ || c == ':';
        // cpp-httplib reads no longer request line; past it, it could only say "bad request".
        if (lines_ == 0 && line_length_ > CPPHTTPLIB_REQUEST_URI_MAX_LENGTH) {
          Refuse(414, absl::StrCat("the request line (method and URL) is over ",
                                   CPPHTTPLIB_REQUEST_URI_MAX_LENGTH, " bytes, the limit"));
          return false;
        }
      }
    }
    return true;
  }

  const ConnectionLimits& limits_;
  const std::chrono::milliseconds read_timeout_;
  const std::chrono::steady_clock::time_point head_deadline_;
  const std::chrono::steady_clock::time_point request_deadline_;
  std::array<char, 4096> buffer_{};
  size_t buffered_ = 0;  // bytes of buffer_ handed out
  size_t filled_ = 0;    // bytes in buffer_
  bool in_head_ = true;
  std::optional<ReadRefusal> refusal_;
  size_t head_bytes_ = 0;
  size_t lines_ = 0;
  size_t line_length_ = 0;
  bool line_has_colon_ = false;
};

// The stand-in request's stream: reads kStandInHead, writes to the connection's socket.
class GuardedServer::ReplayStream : public SocketStream {
 public:
  using SocketStream::SocketStream;

  bool is_readable() const override { return read_ < sizeof(kStandInHead) - 1; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, sizeof(kStandInHead) - 1 - read_);
    std::copy_n(kStandInHead + read_, n, ptr);
    read_ += n;
    return static_cast<ssize_t>(n);
  }

 private:
  size_t read_ = 0;
};

GuardedServer::GuardedServer(const ConnectionLimits& limits) : limits_(limits) {
  new_task_queue = [this] {
    connection_threads_ =
        std::make_unique<WorkerPool>("resched-http", limits_.threads, limits_.max_waiting);
    // At the end of listen: runs the connections posted, joins the threads.
    return new InlineTaskQueue([this] { connection_threads_.reset(); });
  };
  Server::set_pre_routing_handler(
      [this](const httplib::Request& request, httplib::Response& response) {
        return AnswerIfRefused(request, response);
      });
}

GuardedServer::~GuardedServer() = default;

bool GuardedServer::WidenListenBacklog() {
  const socket_t sock = svr_sock_;
  return sock != INVALID_SOCKET && ::listen(sock, SOMAXCONN) == 0;
}

ConnectionCounts GuardedServer::counts() const {
  MutexLock lock(&mu_);
  return counts_;
}

bool GuardedServer::AdmitPeer(const std::string& peer) {
  MutexLock lock(&mu_);
  int& open = per_peer_[peer];
  if (open >= limits_.max_per_peer) {
    if (open == 0) per_peer_.erase(peer);
    ++counts_.refused_per_peer;
    return false;
  }
  ++open;
  ++counts_.served;
  counts_.peak_per_peer = std::max<std::int64_t>(counts_.peak_per_peer, open);
  return true;
}

void GuardedServer::ReleasePeer(const std::string& peer) {
  MutexLock lock(&mu_);
  auto it = per_peer_.find(peer);
  if (it != per_peer_.end() && --it->second == 0) per_peer_.erase(it);
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  if (connection_threads_->TryPost([this, sock] { ServeAndClose(sock); })) return true;
  {
    MutexLock lock(&mu_);
    ++counts_.refused_busy;
  }
  CloseConnection(sock);
  return true;
}

void GuardedServer::ServeAndClose(socket_t sock) {
  if (const std::string peer = PeerAddress(sock); AdmitPeer(peer)) {
    serving_socket = sock;
    Serve(sock);
    serving_socket = INVALID_SOCKET;
    ReleasePeer(peer);
  }
  CloseConnection(sock);
}

socket_t GuardedServer::ServingSocket() { return serving_socket; }

void GuardedServer::Refuse(httplib::Request& request, HttpReply answer) {
  // cpp-httplib cuts every answer into the ranges asked for, a refusal too.
  request.ranges.clear();
  MutexLock lock(&mu_);
  refused_[&request] = std::move(answer);
}

httplib::Server::HandlerResponse GuardedServer::AnswerIfRefused(const httplib::Request& request,
                                                                httplib::Response& response) {
  HttpReply answer;
  {
    MutexLock lock(&mu_);
    auto it = refused_.find(&request);
    if (it == refused_.end()) return HandlerResponse::Unhandled;
    answer = std::move(it->second);
    refused_.erase(it);
  }
  SendReply(answer, response);
  response.set_header("Connection", "close");  // its body, if any, is left unread
  return HandlerResponse::Handled;
}

void GuardedServer::ForgetRefusal(const httplib::Request* request) {
  MutexLock lock(&mu_);
  refused_.erase(request);
}

namespace {

void Linger(socket_t sock) {
  shutdown(sock, SHUT_WR);
  const auto until = std::chrono::steady_clock::now() + kLingerAfterRefusal;
  std::array<char, 4096> sink{};
  for (std::size_t dropped = 0; dropped < kLingerBytes;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !PollFor(sock, POLLIN, left)) return;
    const ssize_t n = recv(sock, sink.data(), sink.size(), 0);
    if (n <= 0) return;
    dropped += static_cast<std::size_t>(n);
  }
}

}  // namespace

bool GuardedServer::WaitForRequest(socket_t sock) const {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(keep_alive_timeout_sec_);
  while (is_running()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd entry{sock, POLLIN, 0};
    const int n =
        poll(&entry, 1, static_cast<int>(std::min<std::int64_t>(left.count(), kStopCheckMillis)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
  return false;
}

void GuardedServer::Serve(socket_t sock) {
  const auto read_timeout =
      std::chrono::milliseconds(read_timeout_sec_ * 1000 + read_timeout_usec_ / 1000);
  for (size_t left = keep_alive_max_count_; left > 0 && WaitForRequest(sock); --left) {
    Stream stream(sock, limits_, read_timeout, WriteTimeout());
    bool connection_closed = false;
    const httplib::Request* parsed = nullptr;
    bool refused = false;
    const bool answered =
        process_request(stream, left == 1, connection_closed, [&](httplib::Request& request) {
          parsed = &request;
          stream.EndHead();
          if (!check_) return;
          if (std::optional<HttpReply> answer = check_(request)) {
            refused = true;
            Refuse(request, *std::move(answer));
          }
        });
    if (refused) ForgetRefusal(parsed);  // answered unless cpp-httplib answered first
    if (stream.refusal()) {
      AnswerReadRefusal(sock, *stream.refusal());
      {
        MutexLock lock(&mu_);
        ++counts_.reads_refused;
      }
      Linger(sock);
      break;
    }
    // A head cpp-httplib could not parse was answered 400, and a refused request's body was not
    // read: where the next request would begin is unknown, so the connection ends.
    if (!answered || connection_closed || parsed == nullptr || refused) break;
  }
}

void GuardedServer::AnswerReadRefusal(socket_t sock, const ReadRefusal& refusal) {
  HttpReply answer = read_refusal_answer_
                         ? read_refusal_answer_(refusal)
                         : HttpReply{refusal.http_status, "text/plain", refusal.message};
  answer.status = refusal.http_status;
  ReplayStream stream(sock, WriteTimeout());
  bool connection_closed = false;
  const httplib::Request* stand_in = nullptr;
  process_request(stream, true, connection_closed, [&](httplib::Request& request) {
    stand_in = &request;
    Refuse(request, answer);
  });
  if (stand_in != nullptr) ForgetRefusal(stand_in);
}

}  // namespace resched::server::web
