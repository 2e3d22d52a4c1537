#include "server/web/jobs_csv.h"

#include <csv.h>
#include <google/protobuf/util/time_util.h>

#include <chrono>
#include <optional>
#include <set>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;
using google::protobuf::util::TimeUtil;

// Names of their own: the sanitizer builds compile this file in one unit with the view's others.
constexpr auto kListJobsDeadline = std::chrono::seconds(30);
constexpr int kListJobsPageSize = 10000;  // ListJobs' largest page

// The filters jobs.csv applies itself, beside the states ListJobs applies.
struct JobFilter {
  std::optional<std::string> owner;
  std::string find;  // lower case
  std::optional<google::protobuf::Timestamp> ended_after;
};

bool Ended(pb::JobState state) {
  return state == pb::FINISHED || state == pb::FAILED || state == pb::CANCELLED;
}

bool Keeps(const JobFilter& filter, const pb::Job& job) {
  const pb::Allocation& a = job.allocation();
  if (a.processors() <= 0 ||
      TimeUtil::TimestampToMicroseconds(a.end()) <= TimeUtil::TimestampToMicroseconds(a.start())) {
    return false;  // held nothing: the page does not draw it either
  }
  if (filter.owner && job.spec().owner() != *filter.owner) return false;
  if (filter.ended_after && Ended(job.state()) && a.end() <= *filter.ended_after) return false;
  if (filter.find.empty()) return true;
  for (const std::string& field :
       {job.id(), job.spec().name(), job.spec().owner(), pb::JobState_Name(job.state())}) {
    if (absl::StrContains(absl::AsciiStrToLower(field), filter.find)) return true;
  }
  return false;
}

// One record: each field quoted by libcsv, separated by commas, ended by CRLF.
void AppendRecord(std::string& out, std::initializer_list<std::string_view> fields) {
  bool first = true;
  for (std::string_view field : fields) {
    if (!first) out.push_back(',');
    first = false;
    const size_t size = csv_write(nullptr, 0, field.data(), field.size());
    const size_t at = out.size();
    out.resize(at + size);
    csv_write(out.data() + at, size, field.data(), field.size());
  }
  out += "\r\n";
}

void AppendJob(std::string& out, const pb::Job& job) {
  const pb::Allocation& a = job.allocation();
  const google::protobuf::Timestamp& released =
      job.spec().has_release() ? job.spec().release() : job.submitted();
  const double wait = static_cast<double>(TimeUtil::TimestampToMicroseconds(a.start()) -
                                          TimeUtil::TimestampToMicroseconds(released)) /
                      1e6;
  AppendRecord(
      out, {job.id(), job.spec().name(), job.spec().owner(), pb::JobState_Name(job.state()),
            absl::StrCat(a.processors()), TimeUtil::ToString(a.start()),
            TimeUtil::ToString(a.end()), absl::StrCat(wait), TimeUtil::ToString(job.submitted())});
}

// The filters from the query, or the error naming the parameter at fault.
absl::Status ParseFilters(const std::multimap<std::string, std::string>& params,
                          pb::ListJobsRequest& request, JobFilter& filter) {
  static const std::set<std::string> kOwn = {"owner", "find", "ended_after"};
  std::multimap<std::string, std::string> states;
  for (const auto& [name, value] : params) {
    if (name == "states") {
      states.emplace(name, value);
      continue;
    }
    if (!kOwn.contains(name)) {
      return absl::InvalidArgumentError(absl::StrCat("query parameter '", name,
                                                     "' is not one jobs.csv takes (states, ",
                                                     absl::StrJoin(kOwn, ", "), ")"));
    }
    if (params.count(name) > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("query parameter '", name, "' is given twice; it takes one value"));
    }
    if (name == "owner") {
      filter.owner = value;
    } else if (name == "find") {
      filter.find = absl::AsciiStrToLower(value);
    } else {
      google::protobuf::Timestamp at;
      if (!TimeUtil::FromString(value, &at)) {
        return absl::InvalidArgumentError(
            absl::StrCat("query parameter 'ended_after' is '", value, "', not an RFC 3339 time"));
      }
      filter.ended_after = at;
    }
  }
  return MergeQuery(states, &request);
}

}  // namespace

HttpReply JobsCsv(pb::Resched::Stub& stub, const std::string& cluster,
                  const std::multimap<std::string, std::string>& params, const WebCaller& caller) {
  pb::ListJobsRequest request;
  JobFilter filter;
  if (absl::Status parsed = ParseFilters(params, request, filter); !parsed.ok()) {
    return ErrorReply(
        grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(parsed.message())));
  }
  request.set_cluster(cluster);
  request.set_page_size(kListJobsPageSize);
  HttpReply reply;
  reply.content_type = kCsvContentType;
  AppendRecord(reply.body, {"id", "name", "owner", "state", "processors", "start", "end",
                            "wait_seconds", "submitted"});
  do {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kListJobsDeadline);
    ForwardCaller(caller, &context);
    pb::ListJobsResponse page;
    if (grpc::Status status = stub.ListJobs(&context, request, &page); !status.ok()) {
      return ErrorReply(status);
    }
    for (const pb::Job& job : page.jobs()) {
      if (Keeps(filter, job)) AppendJob(reply.body, job);
    }
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return reply;
}

}  // namespace resched::server::web
