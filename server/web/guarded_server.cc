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

// Set on the accepting thread while it closes a connection no thread can take.
thread_local bool t_refuse_busy = false;
// The refusal of the request this thread read last (GuardedServer::TakeReadRefusal).
thread_local std::optional<ReadRefusal> t_read_refusal;

// A keep-alive wait looks this often whether the server is stopping.
constexpr int kStopCheckMillis = 50;
// After refusing a request, the rest of what the client sent is read and dropped for this long, at
// most this much, before the socket closes: closing with unread bytes sends a reset, which
// may reach the client before the refusal does and discard it there.
constexpr auto kLingerAfterRefusal = std::chrono::milliseconds(500);
constexpr std::size_t kLingerBytes = 256 << 10;

class BoundedTaskQueue : public httplib::TaskQueue {
 public:
  BoundedTaskQueue(int threads, std::size_t max_waiting)
      : pool_(std::make_unique<WorkerPool>(threads, max_waiting)) {}

  void enqueue(std::function<void()> fn) override {
    if (pool_->TryPost(fn)) return;
    // The task owns the accepted socket: it runs here, and closes it at once.
    t_refuse_busy = true;
    fn();
    t_refuse_busy = false;
  }

  void shutdown() override { pool_.reset(); }  // runs what was posted, joins the threads

 private:
  std::unique_ptr<WorkerPool> pool_;
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

}  // namespace

// One request's reads and writes on the connection's socket. While the head is read, every byte
// handed to cpp-httplib is counted against the head's deadline, size, lines and shape; every read
// of the request, body included, against the request's deadline.
class GuardedServer::Stream : public httplib::Stream {
 public:
  Stream(socket_t sock, const ConnectionLimits& limits, std::chrono::milliseconds read_timeout,
         std::chrono::milliseconds write_timeout)
      : sock_(sock),
        limits_(limits),
        read_timeout_(read_timeout),
        write_timeout_(write_timeout),
        head_deadline_(std::chrono::steady_clock::now() + limits.head_deadline),
        request_deadline_(std::chrono::steady_clock::now() + limits.request_deadline) {}

  void EndHead() { in_head_ = false; }
  bool read_refused() const { return read_refused_; }

  bool is_readable() const override {
    return buffered_ < filled_ || PollFor(sock_, POLLIN, ReadWait());
  }
  bool is_writable() const override { return PollFor(sock_, POLLOUT, write_timeout_); }

  ssize_t read(char* ptr, size_t size) override {
    if (read_refused_) return -1;
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
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    AddressOf(sock_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    AddressOf(sock_, false, ip, port);
  }
  socket_t socket() const override { return sock_; }

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
    read_refused_ = true;
    t_read_refusal = ReadRefusal{http_status, std::move(message)};
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
      }
    }
    return true;
  }

  const socket_t sock_;
  const ConnectionLimits& limits_;
  const std::chrono::milliseconds read_timeout_;
  const std::chrono::milliseconds write_timeout_;
  const std::chrono::steady_clock::time_point head_deadline_;
  const std::chrono::steady_clock::time_point request_deadline_;
  std::array<char, 4096> buffer_{};
  size_t buffered_ = 0;  // bytes of buffer_ handed out
  size_t filled_ = 0;    // bytes in buffer_
  bool in_head_ = true;
  bool read_refused_ = false;
  size_t head_bytes_ = 0;
  size_t lines_ = 0;
  size_t line_length_ = 0;
  bool line_has_colon_ = false;
};

GuardedServer::GuardedServer(const ConnectionLimits& limits) : limits_(limits) {
  new_task_queue = [this] { return new BoundedTaskQueue(limits_.threads, limits_.max_waiting); };
}

GuardedServer::~GuardedServer() = default;

bool GuardedServer::WidenListenBacklog() {
  const socket_t sock = svr_sock_;
  return sock != INVALID_SOCKET && ::listen(sock, SOMAXCONN) == 0;
}

std::optional<ReadRefusal> GuardedServer::TakeReadRefusal() {
  std::optional<ReadRefusal> refusal = std::move(t_read_refusal);
  t_read_refusal.reset();
  return refusal;
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
  if (t_refuse_busy) {
    MutexLock lock(&mu_);
    ++counts_.refused_busy;
  } else if (const std::string peer = PeerAddress(sock); AdmitPeer(peer)) {
    Serve(sock);
    ReleasePeer(peer);
  }
  shutdown(sock, SHUT_RDWR);
  close(sock);
  return true;
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
  const auto write_timeout =
      std::chrono::milliseconds(write_timeout_sec_ * 1000 + write_timeout_usec_ / 1000);
  for (size_t left = keep_alive_max_count_; left > 0 && WaitForRequest(sock); --left) {
    Stream stream(sock, limits_, read_timeout, write_timeout);
    t_read_refusal.reset();
    bool connection_closed = false;
    bool head_parsed = false;
    bool keep = true;
    const bool answered =
        process_request(stream, left == 1, connection_closed, [&](httplib::Request& request) {
          head_parsed = true;
          stream.EndHead();
          if (setup_) keep = setup_(request);
        });
    if (stream.read_refused()) {
      {
        MutexLock lock(&mu_);
        ++counts_.reads_refused;
      }
      Linger(sock);
      break;
    }
    // A head cpp-httplib could not parse was answered 400, and a refused request's body was not
    // read: where the next request would begin is unknown, so the connection ends.
    if (!answered || connection_closed || !head_parsed || !keep) break;
  }
}

}  // namespace resched::server::web
