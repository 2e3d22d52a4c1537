#include "server/web/what_if.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/time_util.h>

#include <chrono>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "proto/resched/dag_import.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;

// A plan's bisection over a large DAG takes a while; the page waits for it.
constexpr auto kWhatIfDeadline = std::chrono::seconds(60);

HttpReply BadRequest(const std::string& message) {
  return ErrorReply(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message));
}

void PrepareContext(const WebCaller& caller, grpc::ClientContext* context) {
  context->set_deadline(std::chrono::system_clock::now() + kWhatIfDeadline);
  ForwardCaller(caller, context);
}

// The one value of query parameter `name`, or nullptr; `twice` is set when it is given more.
const std::string* Param(const std::multimap<std::string, std::string>& params,
                         const std::string& name, bool& twice) {
  auto [first, last] = params.equal_range(name);
  if (first == last) return nullptr;
  twice = twice || std::next(first) != last;
  return &first->second;
}

}  // namespace

HttpReply WhatIfJob(pb::Resched::Stub& stub, const std::string& cluster, const std::string& body,
                    const WebCaller& caller) {
  pb::SubmitJobRequest request;
  request.set_cluster(cluster);
  request.set_dry_run(true);
  if (auto parsed = google::protobuf::util::JsonStringToMessage(body, request.mutable_job());
      !parsed.ok()) {
    return BadRequest(absl::StrCat("body (a JobSpec in JSON): ", parsed.message().as_string()));
  }
  grpc::ClientContext context;
  PrepareContext(caller, &context);
  pb::SubmitJobResponse response;
  const grpc::Status status = stub.SubmitJob(&context, request, &response);
  return status.ok() ? JsonReply(response) : ErrorReply(status);
}

HttpReply WhatIfDag(pb::Resched::Stub& stub, const std::string& cluster,
                    const std::multimap<std::string, std::string>& params, const std::string& body,
                    const WebCaller& caller) {
  static const std::set<std::string> kKnown = {"algorithm", "deadline", "format", "alpha", "file"};
  for (const auto& [name, value] : params) {
    if (!kKnown.contains(name)) {
      return BadRequest(
          absl::StrCat("query parameter '", name,
                       "' is not one of algorithm, deadline, format, alpha and file"));
    }
  }
  bool twice = false;
  const std::string* algorithm = Param(params, "algorithm", twice);
  const std::string* deadline = Param(params, "deadline", twice);
  const std::string* format_name = Param(params, "format", twice);
  const std::string* alpha = Param(params, "alpha", twice);
  const std::string* file = Param(params, "file", twice);
  if (twice) return BadRequest("a query parameter is given twice; each takes one value");

  api::DagFormat format = api::DagFormat::kAuto;
  if (format_name != nullptr) {
    absl::StatusOr<api::DagFormat> parsed = api::ParseDagFormat(*format_name);
    if (!parsed.ok()) {
      return BadRequest(absl::StrCat("query parameter 'format': ", parsed.status().message()));
    }
    format = *parsed;
  }
  WorkflowImportOptions options;
  if (alpha != nullptr &&
      (!absl::SimpleAtod(*alpha, &options.alpha) || !(options.alpha >= 0 && options.alpha <= 1))) {
    return BadRequest(
        absl::StrCat("query parameter 'alpha' must be in [0, 1], got '", *alpha, "'"));
  }
  pb::QueryDeadlineRequest request;
  request.set_cluster(cluster);
  if (algorithm != nullptr) request.mutable_algorithm()->set_name(*algorithm);
  if (deadline != nullptr &&
      !google::protobuf::util::TimeUtil::FromString(*deadline, request.mutable_deadline())) {
    return BadRequest(
        absl::StrCat("query parameter 'deadline' must be an RFC 3339 time, got '", *deadline, "'"));
  }
  absl::StatusOr<pb::Dag> dag =
      api::ParseDagText(file != nullptr ? *file : "", body, format, options);
  if (!dag.ok()) return BadRequest(absl::StrCat("body: ", dag.status().message()));
  *request.mutable_dag() = *std::move(dag);
  grpc::ClientContext context;
  PrepareContext(caller, &context);
  pb::QueryDeadlineResponse response;
  const grpc::Status status = stub.QueryDeadline(&context, request, &response);
  return status.ok() ? JsonReply(response) : ErrorReply(status);
}

}  // namespace resched::server::web
