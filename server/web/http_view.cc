#include "server/web/http_view.h"

#include <httplib.h>

#include <chrono>
#include <regex>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "prometheus/text_serializer.h"
#include "resched/v1/service.grpc.pb.h"
#include "server/base/log.h"
#include "server/base/mutex.h"
#include "server/rpc/call_peer.h"
#include "server/web/assets.h"
#include "server/web/compression.h"
#include "server/web/event_stream.h"
#include "server/web/guarded_server.h"
#include "server/web/jobs_csv.h"
#include "server/web/json_gateway.h"
#include "server/web/request_guard.h"
#include "server/web/what_if.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;

// A unary call's longest wait for the service: the page asks again at its next refresh.
constexpr auto kCallDeadline = std::chrono::seconds(30);
// An open event stream holds one of the HTTP server's threads: they are capped below the
// thread count (ConnectionLimits::threads), so that the API always has threads left to answer.
constexpr int kMaxEventStreams = 16;
// One client's share of them (ConnectionLimits::max_per_peer bounds its connections as a whole).
constexpr int kMaxEventStreamsPerClient = 4;
// The text of recent events, shared by the streams (the pages read the same events at about the
// same time; one that falls further behind converts its events again).
constexpr std::size_t kEventChunkBytes = 16 << 20;

template <class Request, class Response>
using UnaryMethod = grpc::Status (pb::Resched::Stub::*)(grpc::ClientContext*, const Request&,
                                                        Response*);

// HOST:PORT, the host possibly in brackets ([::1]:8080).
absl::StatusOr<std::pair<std::string, int>> SplitHostPort(const std::string& address) {
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--http-listen must be HOST:PORT with a port in [0, 65535], got '", address, "'"));
  }
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return std::make_pair(host, port);
}

// The parameters of the URL's query only: cpp-httplib adds a form body's fields to
// `params`, and a YAML file posted with curl's default content type must stay a body.
std::multimap<std::string, std::string> QueryOf(const httplib::Request& http) {
  httplib::Params params;
  const size_t question = http.target.find('?');
  if (question != std::string::npos) {
    httplib::detail::parse_query_text(http.target.substr(question + 1), params);
  }
  return params;
}

// What the gRPC calls made for `http` pass on about its client.
WebCaller CallerOf(const httplib::Request& http) {
  return {http.get_header_value("Authorization"),
          PeerOfAddress(http.remote_addr, http.remote_port)};
}

}  // namespace

class HttpView::Impl {
 public:
  explicit Impl(Options options)
      : stub_(pb::Resched::NewStub(options.channel)),
        watches_(*options.watches),
        metrics_(std::move(options.metrics)),
        event_heartbeat_(options.event_heartbeat),
        server_(options.connections) {
    // cpp-httplib's default also sets SO_REUSEPORT: a second server on a busy port would then
    // start, and the kernel would split the browsers between two servers.
    server_.set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    // A what-if's DAG file: as large as a gRPC request may be.
    server_.set_payload_max_length(options.max_body_bytes);
    server_.set_request_check(
        [site = std::move(options.site)](const httplib::Request& http) -> std::optional<HttpReply> {
          if (std::optional<HttpReply> refused = RefuseRequest(http)) return refused;
          return RefuseForeignSite(http, site);
        });
    server_.set_read_refusal_answer([](const ReadRefusal& refused) {
      HttpReply reply =
          ErrorReply(grpc::Status(refused.http_status == 408 ? grpc::StatusCode::DEADLINE_EXCEEDED
                                                             : grpc::StatusCode::INVALID_ARGUMENT,
                                  refused.message));
      reply.status = refused.http_status;
      return reply;
    });
    // A handler that throws answers 500 and the server goes on; cpp-httplib would otherwise put
    // the exception's text in a response header.
    server_.set_exception_handler(
        [](const httplib::Request& http, httplib::Response& response, const std::exception_ptr&) {
          Log(LogLevel::kError, "web_handler_failed",
              absl::StrCat("the web view's handler for ", http.method, " ", http.path,
                           " failed with an exception"));
          SendReply(ErrorReply(grpc::Status(grpc::StatusCode::INTERNAL,
                                            "the web view failed to answer; see the server's log")),
                    response);
        });
    server_.set_post_routing_handler(GzipJsonAnswer);
    Routes(options.max_body_bytes);
  }

  absl::Status Listen(const std::string& address) {
    absl::StatusOr<std::pair<std::string, int>> host_port = SplitHostPort(address);
    if (!host_port.ok()) return host_port.status();
    const auto& [host, wanted] = *host_port;
    port_ = wanted == 0 ? server_.bind_to_any_port(host)
                        : (server_.bind_to_port(host, wanted) ? wanted : -1);
    if (port_ > 0 && !server_.WidenListenBacklog()) port_ = -1;
    if (port_ <= 0) {
      return absl::UnavailableError(absl::StrCat("cannot listen on ", address,
                                                 " for the web view (address in use, or not "
                                                 "an address of this machine)"));
    }
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // The socket already queues connections; waiting for the accept loop lets stop() end it.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return absl::OkStatus();
  }

  ~Impl() {
    streams_.CancelAll();  // a handler blocked on its stream's next event returns now
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }
  ConnectionCounts connection_counts() const { return server_.counts(); }

 private:
  void Routes(size_t max_body_bytes) {
    Get(R"(/api/v1/clusters)", Unary(&pb::Resched::Stub::ListClusters, NothingFromPath));
    Get(R"(/api/v1/clusters/([^/]+))",
        Unary(&pb::Resched::Stub::GetCluster,
              [](const httplib::Request& http, pb::GetClusterRequest& request) {
                request.set_name(http.matches[1]);
              }));
    Get(R"(/api/v1/clusters/([^/]+)/schedule)",
        Unary(&pb::Resched::Stub::GetSchedule, ClusterFromPath<pb::GetScheduleRequest>));
    Get(R"(/api/v1/clusters/([^/]+)/jobs)",
        Unary(&pb::Resched::Stub::ListJobs, ClusterFromPath<pb::ListJobsRequest>));
    Get(R"(/api/v1/clusters/([^/]+)/jobs\.csv)",
        [this](const httplib::Request& http, httplib::Response& response) {
          SendReply(JobsCsv(*stub_, http.matches[1], QueryOf(http), CallerOf(http)), response);
        });
    Get(R"(/api/v1/clusters/([^/]+)/jobs/([^/]+))",
        Unary(&pb::Resched::Stub::GetJob,
              [](const httplib::Request& http, pb::GetJobRequest& request) {
                request.set_cluster(http.matches[1]);
                request.set_id(http.matches[2]);
              }));
    Get(R"(/api/v1/clusters/([^/]+)/dags)", Unary(&pb::Resched::Stub::ListDagReservations,
                                                  ClusterFromPath<pb::ListDagReservationsRequest>));
    Get(R"(/api/v1/algorithms)", Unary(&pb::Resched::Stub::ListAlgorithms, NothingFromPath));
    Get(R"(/api/v1/clusters/([^/]+)/events)",
        [this](const httplib::Request& http, httplib::Response& response) {
          Events(http, response);
        });
    Post(R"(/api/v1/clusters/([^/]+)/what-if/job)",
         [this](const httplib::Request& http, httplib::Response& response) {
           SendReply(WhatIfJob(*stub_, http.matches[1], http.body, CallerOf(http)), response);
         });
    Post(R"(/api/v1/clusters/([^/]+)/what-if/dag)",
         [this](const httplib::Request& http, httplib::Response& response) {
           SendReply(WhatIfDag(*stub_, http.matches[1], QueryOf(http), http.body, CallerOf(http)),
                     response);
         });
    Get("/metrics",
        [this](const httplib::Request&, httplib::Response& response) { Metrics(response); });
    Get(R"(/[^/]*)", [](const httplib::Request& http, httplib::Response& response) {
      const std::optional<Asset> asset = FindAsset(http.path);
      if (!asset) {
        SendReply(ErrorReply(grpc::Status(grpc::StatusCode::NOT_FOUND,
                                          absl::StrCat("no page at '", http.path, "'"))),
                  response);
        return;
      }
      response.set_header("Cache-Control", "no-cache");
      response.set_content(std::string(asset->body), std::string(asset->content_type));
    });
    server_.set_error_handler([this, max_body_bytes](const httplib::Request& http,
                                                     httplib::Response& response) {
      if (!response.body.empty()) return;  // a handler's own answer
      if (response.status == 413) {        // httplib refused the body before any handler ran
        HttpReply reply =
            ErrorReply(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                    absl::StrCat("the request body is larger than ", max_body_bytes,
                                                 " bytes, the web view's limit")));
        reply.status = 413;
        SendReply(reply, response);
        return;
      }
      if (http.method.empty()) {  // cpp-httplib could not read the request line
        SendReply(ErrorReply(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                          "the request is not an HTTP/1.1 request line and header "
                                          "fields")),
                  response);
        return;
      }
      if (const std::string allowed = AllowedAt(http.path);
          response.status == 404 && !allowed.empty()) {
        // A route that takes other methods: 405, and which ones.
        HttpReply reply = ErrorReply(grpc::Status(
            grpc::StatusCode::INVALID_ARGUMENT, absl::StrCat(http.method, " is not a method of '",
                                                             http.path, "'; it takes ", allowed)));
        reply.status = 405;
        SendReply(reply, response);
        response.set_header("Allow", allowed);
        return;
      }
      SendReply(ErrorReply(grpc::Status(response.status == 404 ? grpc::StatusCode::NOT_FOUND
                                                               : grpc::StatusCode::INVALID_ARGUMENT,
                                        absl::StrCat("no ", http.method, " at '", http.path, "'"))),
                response);
    });
  }

  // Registers a route and remembers its method, for the 405 answers' Allow header.
  void Get(const std::string& pattern, httplib::Server::Handler handler) {
    routes_.emplace_back(std::regex(pattern), "GET");
    server_.Get(pattern, std::move(handler));
  }
  void Post(const std::string& pattern, httplib::Server::Handler handler) {
    routes_.emplace_back(std::regex(pattern), "POST");
    server_.Post(pattern, std::move(handler));
  }
  // The methods some route takes at `path`, as an Allow header lists them; empty: none.
  std::string AllowedAt(const std::string& path) const {
    std::set<std::string> methods;
    for (const auto& [pattern, method] : routes_) {
      if (std::regex_match(path, pattern)) methods.insert(method);
    }
    if (methods.contains("GET")) methods.insert("HEAD");  // cpp-httplib answers HEAD with GET's
    return absl::StrJoin(methods, ", ");
  }

  static void NothingFromPath(const httplib::Request&, google::protobuf::Message&) {}

  // An error naming a field that both the query (`request`) and the path (`from_path`) set.
  static absl::Status QueryLeavesPathFieldsAlone(const httplib::Request& http,
                                                 const google::protobuf::Message& request,
                                                 const google::protobuf::Message& from_path) {
    std::vector<const google::protobuf::FieldDescriptor*> path_fields;
    from_path.GetReflection()->ListFields(from_path, &path_fields);
    for (const google::protobuf::FieldDescriptor* field : path_fields) {
      if (request.GetReflection()->HasField(request, field)) {
        return absl::InvalidArgumentError(absl::StrCat("query parameter '", field->name(),
                                                       "' is set by the path '", http.path,
                                                       "'; leave it out of the query"));
      }
    }
    return absl::OkStatus();
  }
  template <class Request>
  static void ClusterFromPath(const httplib::Request& http, Request& request) {
    request.set_cluster(http.matches[1]);
  }

  // A handler that fills the request from the query, then from the path, calls `method` and
  // answers its response or its status as JSON. A query may not set what the path sets.
  template <class Request, class Response, class FromPath>
  httplib::Server::Handler Unary(UnaryMethod<Request, Response> method, FromPath from_path) {
    return [this, method, from_path](const httplib::Request& http, httplib::Response& response) {
      Request request;
      Request path_fields;
      from_path(http, path_fields);
      absl::Status parsed = MergeQuery(QueryOf(http), &request);
      if (parsed.ok()) parsed = QueryLeavesPathFieldsAlone(http, request, path_fields);
      if (!parsed.ok()) {
        SendReply(ErrorReply(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                          std::string(parsed.message()))),
                  response);
        return;
      }
      request.MergeFrom(path_fields);
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
      ForwardCaller(CallerOf(http), &context);
      Response answer;
      const grpc::Status status = (stub_.get()->*method)(&context, request, &answer);
      SendReply(status.ok() ? JsonReply(answer) : ErrorReply(status), response);
    };
  }

  grpc::Status ProbeCluster(const std::string& cluster, const WebCaller& caller) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
    ForwardCaller(caller, &context);
    pb::GetClusterRequest request;
    request.set_name(cluster);
    pb::Cluster answer;
    return stub_->GetCluster(&context, request, &answer);
  }

  void Events(const httplib::Request& http, httplib::Response& response) {
    WebCaller caller = CallerOf(http);
    // EventSource cannot set headers: the page passes its token as a parameter.
    if (caller.authorization.empty() && http.has_param("access_token")) {
      caller.authorization = absl::StrCat("Bearer ", http.get_param_value("access_token"));
    }
    // A stream for a cluster that is not there answers its error at once: a stream that opens
    // and ends would have the browser's EventSource reconnect for ever.
    if (grpc::Status known = ProbeCluster(http.matches[1], caller); !known.ok()) {
      SendReply(ErrorReply(known), response);
      return;
    }
    const std::string authorization = caller.authorization;
    // A browser that reconnects sends the id of the last event it had (EventStream).
    std::int64_t after_sequence = 0;
    if (!absl::SimpleAtoi(http.get_header_value("Last-Event-ID"), &after_sequence) ||
        after_sequence < 0) {
      after_sequence = 0;
    }
    auto stream = std::make_shared<EventStream>(watches_, http.matches[1], caller, event_heartbeat_,
                                                event_chunks_, after_sequence);
    // Streams count against the token that opened them, or the address without one.
    const std::string client = authorization.empty() ? absl::StrCat("address ", http.remote_addr)
                                                     : absl::StrCat("token ", authorization);
    if (absl::Status added = streams_.Add(stream, client); !added.ok()) {
      SendReply(ErrorReply(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                        std::string(added.message()))),
                response);
      return;
    }
    response.set_header("Cache-Control", "no-store");
    response.set_chunked_content_provider(
        "text/event-stream",
        [stream](size_t, httplib::DataSink& sink) {
          std::string chunk;
          // Run on the connection's thread: its socket is the page's.
          const bool more = stream->Next(chunk, GuardedServer::ServingSocket());
          if (!chunk.empty() && !sink.write(chunk.data(), chunk.size())) return false;
          if (!more) sink.done();
          return true;
        },
        [this, stream](bool) {
          stream->Cancel();
          streams_.Remove(stream);
        });
  }

  void Metrics(httplib::Response& response) {
    std::vector<prometheus::MetricFamily> families;
    for (const auto& collectable : metrics_) {
      std::vector<prometheus::MetricFamily> collected = collectable->Collect();
      families.insert(families.end(), std::make_move_iterator(collected.begin()),
                      std::make_move_iterator(collected.end()));
    }
    response.set_content(prometheus::TextSerializer().Serialize(families),
                         "text/plain; version=0.0.4");
  }

  std::unique_ptr<pb::Resched::Stub> stub_;
  WatchOpener& watches_;
  const std::vector<std::shared_ptr<prometheus::Collectable>> metrics_;
  const std::chrono::milliseconds event_heartbeat_;
  EventChunks event_chunks_{kEventChunkBytes};
  EventStreams streams_{kMaxEventStreams, kMaxEventStreamsPerClient};
  std::vector<std::pair<std::regex, std::string>> routes_;  // pattern, method; set before listening
  GuardedServer server_;
  std::thread thread_;
  int port_ = 0;
};

absl::StatusOr<std::unique_ptr<HttpView>> HttpView::Start(Options options) {
  if (options.channel == nullptr || options.watches == nullptr) {
    return absl::InvalidArgumentError("the web view needs the service's channel and watches");
  }
  const std::string address = options.address;
  auto impl = std::make_unique<Impl>(std::move(options));
  if (absl::Status listening = impl->Listen(address); !listening.ok()) return listening;
  return std::unique_ptr<HttpView>(new HttpView(std::move(impl)));
}

HttpView::HttpView(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpView::~HttpView() = default;

int HttpView::port() const { return impl_->port(); }

ConnectionCounts HttpView::connection_counts() const { return impl_->connection_counts(); }

}  // namespace resched::server::web
