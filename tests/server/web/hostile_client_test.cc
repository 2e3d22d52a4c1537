// The web view against clients that mean harm, over raw sockets: each request that once killed
// the server or made it work out of proportion is refused, naming what is wrong, and the server
// still answers the next request. Requests that name another site, or come from another
// site's page, are refused. A fuzz test throws random bytes at every route's header,
// query, path and body, and checks the server alive after each case.
#include <atomic>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tests/server/web/raw_http.h"
#include "tests/server/web/web_fixture.h"

namespace resched::server::web {
namespace {

using testing::ConnectRaw;
using testing::HttpViewTest;
using testing::RawExchange;
using testing::RawStatus;
using testing::ReadRaw;
using testing::ReadRawHead;
using testing::SendAll;

// Every route of the view, with a path that reaches it; the events route last (it streams).
const std::vector<std::pair<std::string, std::string>>& Routes() {
  static const auto* const routes = new std::vector<std::pair<std::string, std::string>>{
      {"GET", "/"},
      {"GET", "/app.js"},
      {"GET", "/style.css"},
      {"GET", "/metrics"},
      {"GET", "/api/v1/clusters"},
      {"GET", "/api/v1/algorithms"},
      {"GET", "/api/v1/clusters/default"},
      {"GET", "/api/v1/clusters/default/schedule"},
      {"GET", "/api/v1/clusters/default/jobs"},
      {"GET", "/api/v1/clusters/default/jobs/j1"},
      {"GET", "/api/v1/clusters/default/dags"},
      {"POST", "/api/v1/clusters/default/what-if/job"},
      {"POST", "/api/v1/clusters/default/what-if/dag"},
      {"GET", "/nothing/here"},
      {"GET", "/api/v1/clusters/default/events"},
  };
  return *routes;
}

std::string Head(const std::string& method, const std::string& target,
                 const std::string& extra_headers = "") {
  return absl::StrCat(method, " ", target, " HTTP/1.1\r\nHost: 127.0.0.1\r\n", extra_headers,
                      "Content-Length: 0\r\nConnection: close\r\n\r\n");
}

// The answer's head only: an event stream that was opened goes on after it.
std::string ExchangeHead(int port, const std::string& request) {
  const int sock = ConnectRaw(port);
  if (sock < 0) return "";
  std::string answer = SendAll(sock, request) ? ReadRawHead(sock, std::chrono::seconds(10)) : "";
  close(sock);
  return answer;
}

class HostileClientTest : public HttpViewTest {
 protected:
  // The view answers a plain request, and the service behind it a gRPC call.
  void ExpectAlive(const std::string& after) {
    httplib::Result result = client_->Get("/api/v1/clusters");
    ASSERT_TRUE(result) << "no answer after " << after;
    EXPECT_EQ(result->status, 200) << "after " << after;
    pb::ListClustersResponse clusters;
    grpc::ClientContext context;
    EXPECT_TRUE(stub_->ListClusters(&context, pb::ListClustersRequest(), &clusters).ok());
  }
};

TEST_F(HostileClientTest, TheReportedTokenThatAbortedTheServerIsRefusedNamingTheParameter) {
  const std::string answer =
      RawExchange(view_->port(), Head("GET", "/api/v1/clusters/default/events?access_token=%0A"));
  EXPECT_EQ(RawStatus(answer), 400) << answer;
  EXPECT_NE(answer.find("query parameter 'access_token' holds the byte 0x0A"), std::string::npos)
      << answer;
  EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos) << answer;
  ExpectAlive("access_token=%0A");
}

TEST_F(HostileClientTest, AnAuthorizationGrpcWouldRefuseIsRefusedOnEveryRoute) {
  for (const auto& [method, path] : Routes()) {
    for (const char* bad : {"Bearer \x01", "Bearer caf\xC3\xA9", "Bearer \x7F", "Bearer a\tb"}) {
      const std::string answer = ExchangeHead(
          view_->port(), Head(method, path, absl::StrCat("Authorization: ", bad, "\r\n")));
      EXPECT_EQ(RawStatus(answer), 400) << method << " " << path << ": " << answer;
    }
    ExpectAlive(path);
  }
}

TEST_F(HostileClientTest, ThousandsOfRangesAreRefusedNotAmplifiedOnEveryRoute) {
  std::string ranges = "bytes=0-";
  for (int i = 1; i < 2700; ++i) ranges += ",0-";
  for (const auto& [method, path] : Routes()) {
    const std::string answer =
        ExchangeHead(view_->port(), Head(method, path, absl::StrCat("Range: ", ranges, "\r\n")));
    EXPECT_EQ(RawStatus(answer), 416) << method << " " << path << ": " << answer;
    EXPECT_LT(answer.size(), 4096u) << path;
  }
  const std::string whole = RawExchange(view_->port(), Head("GET", "/app.js"));
  EXPECT_LT(RawExchange(view_->port(), Head("GET", "/app.js", "Range: bytes=0-9,0-9\r\n")).size(),
            1024u);
  // One range, and a few disjoint ones, are served.
  const std::string first_ten =
      RawExchange(view_->port(), Head("GET", "/app.js", "Range: bytes=0-9\r\n"));
  EXPECT_EQ(RawStatus(first_ten), 206) << first_ten;
  const std::string body = whole.substr(whole.find("\r\n\r\n") + 4);
  EXPECT_TRUE(first_ten.ends_with("\r\n\r\n" + body.substr(0, 10))) << first_ten;
  EXPECT_EQ(
      RawStatus(RawExchange(view_->port(), Head("GET", "/app.js", "Range: bytes=0-9,100-109\r\n"))),
      206);
  ExpectAlive("ranges");
}

// DNS rebinding: a page of another site whose name now resolves to 127.0.0.1 sends its own
// name as Host; a cross-site request sends its page's site as Origin.
TEST_F(HostileClientTest, AnotherSitesNameOrPageIsRefusedOnEveryRoute) {
  const std::string self = absl::StrCat("127.0.0.1:", view_->port());
  auto request = [](const std::string& method, const std::string& path, const std::string& host,
                    const std::string& extra = "") {
    return absl::StrCat(method, " ", path, " HTTP/1.1\r\nHost: ", host, "\r\n", extra,
                        "Content-Length: 0\r\nConnection: close\r\n\r\n");
  };
  for (const auto& [method, path] : Routes()) {
    const std::string rebound =
        ExchangeHead(view_->port(), request(method, path, "rebind.example"));
    EXPECT_EQ(RawStatus(rebound), 403) << method << " " << path << ": " << rebound;
    const std::string cross =
        ExchangeHead(view_->port(), request(method, path, self, "Origin: http://evil.example\r\n"));
    EXPECT_EQ(RawStatus(cross), 403) << method << " " << path << ": " << cross;
  }
  const std::string refused =
      RawExchange(view_->port(), request("GET", "/api/v1/clusters", "rebind.example:8080"));
  EXPECT_NE(refused.find("header Host 'rebind.example:8080' is not a name of this server"),
            std::string::npos)
      << refused;
  // Its own page, and the names a browser on this machine uses, are served.
  for (const std::string& host :
       {self, absl::StrCat("localhost:", view_->port()), absl::StrCat("[::1]:", view_->port())}) {
    const std::string own = RawExchange(
        view_->port(),
        request("GET", "/api/v1/clusters", host, absl::StrCat("Origin: http://", host, "\r\n")));
    EXPECT_EQ(RawStatus(own), 200) << host << ": " << own;
  }
  // A proxy's name, once allowed (--http-allowed-hosts), in any case.
  HttpView::Options options = ViewOptions("127.0.0.1:0");
  options.site.allowed_hosts = {"resched.example.org"};
  RestartView(std::move(options));
  EXPECT_EQ(RawStatus(RawExchange(view_->port(),
                                  request("GET", "/api/v1/clusters", "Resched.Example.org"))),
            200);
  EXPECT_EQ(
      RawStatus(RawExchange(view_->port(), request("GET", "/api/v1/clusters", "resched.example.org",
                                                   "Origin: https://resched.example.org\r\n"))),
      200);
  EXPECT_EQ(
      RawStatus(RawExchange(view_->port(), request("GET", "/api/v1/clusters", "rebind.example"))),
      403);
  ExpectAlive("other sites");
}

TEST_F(HostileClientTest, AHeadOverItsLimitsIsRefusedAndTheConnectionClosed) {
  std::string many;
  for (int i = 0; i < 20000; ++i) absl::StrAppend(&many, "X-", i, ": v\r\n");
  std::string answer = RawExchange(view_->port(), Head("GET", "/api/v1/clusters", many));
  EXPECT_EQ(RawStatus(answer), 431) << answer.substr(0, 300);
  EXPECT_NE(answer.find("more than 100 header fields, the limit"), std::string::npos);

  answer = RawExchange(view_->port(), Head("GET", "/api/v1/clusters", "NoColonHere\r\n"));
  EXPECT_EQ(RawStatus(answer), 400) << answer;
  EXPECT_NE(answer.find("header line 2 has no ':'"), std::string::npos) << answer;

  std::string large;
  for (int i = 0; i < 20; ++i)
    absl::StrAppend(&large, "X-", i, ": ", std::string(4000, 'v'), "\r\n");
  answer = RawExchange(view_->port(), Head("GET", "/api/v1/clusters", large));
  EXPECT_EQ(RawStatus(answer), 431) << answer.substr(0, 300);
  EXPECT_NE(answer.find("over 65536 bytes, the limit"), std::string::npos);

  // A URL longer than cpp-httplib reads: 414, saying so.
  answer = RawExchange(
      view_->port(), Head("GET", absl::StrCat("/api/v1/clusters?x=", std::string(20000, 'a')), ""));
  EXPECT_EQ(RawStatus(answer), 414) << answer.substr(0, 300);
  EXPECT_NE(answer.find("request line (method and URL) is over 8192 bytes"), std::string::npos)
      << answer.substr(0, 300);

  // 100 fields are fine (Head adds Host, Content-Length and Connection).
  std::string hundred;
  for (int i = 0; i < 97; ++i) absl::StrAppend(&hundred, "X-", i, ": v\r\n");
  EXPECT_EQ(RawStatus(RawExchange(view_->port(), Head("GET", "/api/v1/clusters", hundred))), 200);
  ExpectAlive("large heads");
  EXPECT_EQ(view_->connection_counts().reads_refused, 4);
}

// Sixty connections from one address that send their heads a byte at a time hold no more than
// that address's share of the threads, and only until the head's deadline: the JSON API answers
// another address all along, and the slow heads are answered 408.
TEST_F(HostileClientTest, SlowHeadsFromOnePeerDoNotStarveTheApi) {
  HttpView::Options options = ViewOptions("127.0.0.1:0");
  options.connections.head_deadline = std::chrono::milliseconds(3000);
  RestartView(std::move(options));

  constexpr int kSlow = 60;
  std::vector<int> socks;
  for (int i = 0; i < kSlow; ++i) {
    const int sock = ConnectRaw(view_->port(), "127.0.0.2");
    ASSERT_GE(sock, 0) << "cannot connect from 127.0.0.2";
    socks.push_back(sock);
    SendAll(sock, "GET /api/v1/clusters HTTP/1.1\r\nX-Slow: ");
  }
  std::atomic<bool> trickling = true;
  std::thread trickle([&] {
    while (trickling) {
      for (int sock : socks) SendAll(sock, "a");
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  for (int i = 0; i < 5; ++i) {
    httplib::Result result = client_->Get("/api/v1/clusters");
    EXPECT_TRUE(result && result->status == 200) << "call " << i;
  }
  std::string late;
  for (int sock : socks) {
    const std::string answer = ReadRaw(sock, std::chrono::seconds(30));
    if (RawStatus(answer) == 408) late = answer;
  }
  trickling = false;
  trickle.join();
  for (int sock : socks) close(sock);
  // A connection's refusal is counted just after its answer is sent.
  for (int i = 0; i < 500 && view_->connection_counts().reads_refused < 32; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_NE(late.find("did not arrive within 3000 ms, the limit"), std::string::npos) << late;
  // No more than ConnectionLimits::max_per_peer held at once; the rest closed at once, the
  // held ones cut at the deadline (then others took their places).
  const ConnectionCounts counts = view_->connection_counts();
  EXPECT_EQ(counts.peak_per_peer, 32);
  EXPECT_GE(counts.refused_per_peer, 1);
  EXPECT_GE(counts.reads_refused, 32);
  ExpectAlive("slow heads");
}

// A request line that never ends is answered 408 at the head's deadline too, though cpp-httplib
// has not begun a request yet when it is cut.
TEST_F(HostileClientTest, AnUnfinishedRequestLineIsAnsweredAtTheHeadDeadline) {
  HttpView::Options options = ViewOptions("127.0.0.1:0");
  options.connections.head_deadline = std::chrono::milliseconds(800);
  RestartView(std::move(options));

  const int sock = ConnectRaw(view_->port());
  ASSERT_GE(sock, 0);
  SendAll(sock, "GET /api/v1/clus");
  std::string answer;
  for (int i = 0; i < 100 && answer.empty(); ++i) {
    SendAll(sock, "t");
    answer = ReadRaw(sock, std::chrono::milliseconds(100));
  }
  close(sock);
  EXPECT_EQ(RawStatus(answer), 408) << answer;
  EXPECT_NE(answer.find("the request's head did not arrive within 800 ms, the limit"),
            std::string::npos)
      << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  ExpectAlive("an unfinished request line");
}

// A body sent a byte at a time holds its thread until the request's deadline; a POST without a
// length is refused before any of its body is read.
TEST_F(HostileClientTest, ASlowBodyIsCutAtTheRequestDeadline) {
  HttpView::Options options = ViewOptions("127.0.0.1:0");
  options.connections.request_deadline = std::chrono::milliseconds(1500);
  RestartView(std::move(options));

  const int sock = ConnectRaw(view_->port());
  ASSERT_GE(sock, 0);
  SendAll(sock,
          "POST /api/v1/clusters/default/what-if/job HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
  std::string answer;
  for (int i = 0; i < 100 && answer.empty(); ++i) {
    SendAll(sock, " ");
    answer = ReadRaw(sock, std::chrono::milliseconds(100));
  }
  close(sock);
  EXPECT_EQ(RawStatus(answer), 408) << answer;
  EXPECT_NE(answer.find("the request's body did not arrive within 1500 ms"), std::string::npos)
      << answer;

  const std::string unbounded =
      RawExchange(view_->port(),
                  "POST /api/v1/clusters/default/what-if/job HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n{");
  EXPECT_EQ(RawStatus(unbounded), 411) << unbounded;
  ExpectAlive("slow body");
}

// Random bytes in a header, the query, the path and the body of every route. Each answer is a
// refusal or an answer, never a server error, and the server answers the next request.
TEST_F(HostileClientTest, RandomBytesOnEveryRouteNeverHarmTheServer) {
  RestartViewWithHeartbeat(std::chrono::milliseconds(50));  // streams opened here end soon
  std::mt19937_64 random(20261128);
  const auto bytes = [&](size_t max_length) {
    std::string out(std::uniform_int_distribution<size_t>(0, max_length)(random), '\0');
    // Half the bytes from the bytes that break things most: controls, DEL and non-ASCII.
    static const std::string kNasty("\r\n\t\x7F\x80\xC3\xFF%:;,=&?#/\0", 18);  // two NULs
    for (char& c : out) {
      c = random() % 2 == 0 ? kNasty[random() % kNasty.size()]
                            : static_cast<char>(std::uniform_int_distribution<int>(0, 255)(random));
    }
    return out;
  };
  const auto percent_encoded = [](const std::string& raw) {
    std::string out;
    for (unsigned char c : raw) absl::StrAppend(&out, absl::StrFormat("%%%02X", c));
    return out;
  };
  constexpr int kCasesPerRoute = 200;
  int answered = 0;
  for (const auto& [method, path] : Routes()) {
    for (int i = 0; i < kCasesPerRoute; ++i) {
      std::string request;
      switch (i % 6) {
        case 0:  // the Authorization header's value
          request = Head(method, path, absl::StrCat("Authorization: Bearer ", bytes(40), "\r\n"));
          break;
        case 1:  // a whole header line
          request = Head(method, path, absl::StrCat(bytes(60), "\r\n"));
          break;
        case 2: {  // a query parameter, encoded
          static const std::vector<std::string> kNames = {
              "access_token", "cluster", "states", "from",     "include_finished",
              "format",       "file",    "alpha",  "deadline", "x"};
          request = Head(method, absl::StrCat(path, "?", kNames[random() % kNames.size()], "=",
                                              percent_encoded(bytes(30))));
          break;
        }
        case 3:  // the query, raw
          request = Head(method, absl::StrCat(path, "?", bytes(30)));
          break;
        case 4:  // a path segment, encoded
          request = Head(method, absl::StrCat("/api/v1/clusters/", percent_encoded(bytes(20)),
                                              path.substr(std::min(path.size(), size_t{24}))));
          break;
        default: {  // the body
          const std::string body = bytes(200);
          request = absl::StrCat(method, " ", path,
                                 " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                                 "\r\nContent-Length: ",
                                 body.size(), "\r\nConnection: close\r\n\r\n", body);
        }
      }
      const std::string answer = ExchangeHead(view_->port(), request);
      const int status = RawStatus(answer);
      if (status != 0) ++answered;
      EXPECT_LT(status, 500) << method << " " << path << " case " << i << ": "
                             << answer.substr(0, 200);
      ExpectAlive(absl::StrCat(method, " ", path, " case ", i));
      if (HasFatalFailure()) return;
    }
  }
  // Most cases reach an answer; a few break the framing so that the connection just closes.
  EXPECT_GT(answered, static_cast<int>(Routes().size()) * kCasesPerRoute / 2);
}

}  // namespace
}  // namespace resched::server::web
