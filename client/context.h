// What every command gets: the stub, the output streams, the global flags, and helpers that
// call the server, fetch the cluster (for "+DUR" times and the time style) and print JSON.
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include <chrono>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"
#include "client/durations.h"
#include "resched/v1/service.grpc.pb.h"
#include "transport/call_retry.h"

namespace resched::cli {

// A bad command line: the message and the command's usage go to stderr, exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Any other failure before or after the RPC (an unreadable file): "error: ...", exit 1.
class CliError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// A failed RPC: printed with its details, exit 1.
class RpcError : public std::runtime_error {
 public:
  explicit RpcError(grpc::Status status)
      : std::runtime_error(status.error_message()), status_(std::move(status)) {}
  const grpc::Status& status() const { return status_; }

 private:
  grpc::Status status_;
};

// The message as JSON with the proto field names, on one line unless `indented`; throws CliError.
std::string AnswerJson(const google::protobuf::Message& msg, bool indented);

class Context {
 public:
  Context(resched::v1::Resched::StubInterface* stub, std::ostream& out_stream,
          std::ostream& err_stream)
      : stub_(stub), out(out_stream), err(err_stream) {}

  // Calls a unary method within the --timeout deadline, again while it is answered UNAVAILABLE
  // (transport/call_retry.h); throws RpcError when it fails.
  template <typename Request, typename Response>
  Response Call(grpc::Status (resched::v1::Resched::StubInterface::*method)(grpc::ClientContext*,
                                                                            const Request&,
                                                                            Response*),
                const Request& request) {
    const auto deadline =
        std::chrono::system_clock::now() + std::chrono::microseconds(timeout_micros);
    Request sent = request;
    // A dry run changes nothing: trying it twice is harmless as it is.
    bool dry_run = false;
    if constexpr (requires { sent.dry_run(); }) dry_run = sent.dry_run();
    if constexpr (requires { sent.set_request_id(std::string()); }) {
      if (sent.request_id().empty() && !dry_run)
        sent.set_request_id(transport::NewRequestId("cli-"));
    }
    Response response;
    bool retried = false;
    grpc::Status status = transport::CallUntilAnswered(
        deadline,
        [&] {
          grpc::ClientContext call;
          call.set_deadline(deadline);
          response.Clear();
          return (stub_->*method)(&call, sent, &response);
        },
        &retried);
    if (status.ok()) return response;
    if (retried && transport::FirstAnswer(status, &response)) return response;
    throw RpcError(std::move(status));
  }

  // The --timeout deadline, on a call about to be made.
  void PrepareCall(grpc::ClientContext& call) const {
    call.set_deadline(std::chrono::system_clock::now() + std::chrono::microseconds(timeout_micros));
  }

  // GetCluster, once per name; throws RpcError.
  const resched::v1::Cluster& Cluster(const std::string& name);
  // How to print the cluster's instants; kWall when the cluster cannot be fetched.
  TimeStyle StyleOf(const std::string& cluster);
  // Parses the value of a time flag; "now" and "+DUR" use the cluster's now. Throws
  // UsageError on bad syntax, RpcError when the cluster cannot be fetched.
  int64_t ParseTimeFlag(const std::string& cluster, absl::string_view flag,
                        absl::string_view value);
  // Parses the value of a duration flag; throws UsageError.
  static int64_t ParseDurationFlag(absl::string_view flag, absl::string_view value);
  // Reads a JSON/YAML file ("-" for stdin) into `msg`; throws CliError.
  static void ReadMessageFile(const std::string& path, google::protobuf::Message* msg);

  // The message as JSON with the proto field names, then a newline.
  void PrintJson(const google::protobuf::Message& msg);

  std::string server;
  std::shared_ptr<grpc::Channel> channel;  // for services besides Resched (health)
  bool json = false;
  int64_t timeout_micros = 30'000'000;

 private:
  resched::v1::Resched::StubInterface* stub_;
  std::map<std::string, resched::v1::Cluster> clusters_;

 public:
  std::ostream& out;
  std::ostream& err;
};

}  // namespace resched::cli
