// HTTP requests as raw bytes over a loopback socket, for what cpp-httplib's client would not
// send: control bytes in a header, thousands of ranges, a header without a colon, a request that
// never finishes its headers. Optionally from another loopback address (127.0.0.2, ...), so that a
// test can tell two peers apart on one machine.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace resched::server::web::testing {

// A connected socket to 127.0.0.1:`port` from `source_ip`, or -1.
inline int ConnectRaw(int port, const char* source_ip = "127.0.0.1") {
  const int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0) return -1;
  sockaddr_in source{};
  source.sin_family = AF_INET;
  inet_pton(AF_INET, source_ip, &source.sin_addr);
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(static_cast<uint16_t>(port));
  target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(sock, reinterpret_cast<sockaddr*>(&source), sizeof(source)) != 0 ||
      connect(sock, reinterpret_cast<sockaddr*>(&target), sizeof(target)) != 0) {
    close(sock);
    return -1;
  }
  return sock;
}

inline bool SendAll(int sock, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(sock, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// What the server sends until `done` says so of what came, it closes the connection, or
// `timeout` passes without a byte.
inline std::string ReadRawUntil(int sock, std::chrono::milliseconds timeout,
                                const std::function<bool(const std::string&)>& done) {
  std::string received;
  char buffer[4096];
  while (!done(received)) {
    pollfd readable{sock, POLLIN, 0};
    if (poll(&readable, 1, static_cast<int>(timeout.count())) <= 0) break;
    const ssize_t n = recv(sock, buffer, sizeof(buffer), 0);
    if (n <= 0) break;
    received.append(buffer, static_cast<size_t>(n));
  }
  return received;
}

// What the server sends until it closes the connection, `limit` bytes have come, or `timeout`
// passes without a byte.
inline std::string ReadRaw(int sock, std::chrono::milliseconds timeout, size_t limit = 1 << 20) {
  return ReadRawUntil(sock, timeout,
                      [limit](const std::string& received) { return received.size() >= limit; });
}

// The same until the answer's head is whole (an empty line): an event stream goes on after it.
inline std::string ReadRawHead(int sock, std::chrono::milliseconds timeout) {
  return ReadRawUntil(sock, timeout, [](const std::string& received) {
    return received.find("\r\n\r\n") != std::string::npos;
  });
}

// Sends `request` and returns the answer (see ReadRaw); empty when nothing came.
inline std::string RawExchange(int port, std::string_view request,
                               std::chrono::milliseconds timeout = std::chrono::seconds(10),
                               size_t limit = 1 << 20) {
  const int sock = ConnectRaw(port);
  if (sock < 0) return "";
  std::string answer = SendAll(sock, request) ? ReadRaw(sock, timeout, limit) : "";
  close(sock);
  return answer;
}

// The status code of a raw answer's status line, or 0 when there is none.
inline int RawStatus(std::string_view answer) {
  constexpr std::string_view kPrefix = "HTTP/1.1 ";
  if (answer.substr(0, kPrefix.size()) != kPrefix || answer.size() < kPrefix.size() + 3) return 0;
  return std::stoi(std::string(answer.substr(kPrefix.size(), 3)));
}

}  // namespace resched::server::web::testing
