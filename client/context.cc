#include "client/context.h"

#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "client/render.h"
#include "proto/resched/yaml_json.h"

namespace resched::cli {

const resched::v1::Cluster& Context::Cluster(const std::string& name) {
  auto it = clusters_.find(name);
  if (it == clusters_.end()) {
    resched::v1::GetClusterRequest request;
    request.set_name(name);
    it = clusters_.emplace(name, Call(&resched::v1::Resched::StubInterface::GetCluster, request))
             .first;
  }
  return it->second;
}

TimeStyle Context::StyleOf(const std::string& cluster) {
  try {
    return resched::cli::StyleOf(Cluster(cluster));
  } catch (const RpcError&) {
    return TimeStyle::kWall;
  }
}

int64_t Context::ParseTimeFlag(const std::string& cluster, absl::string_view flag,
                               absl::string_view value) {
  absl::StatusOr<int64_t> t = ParseTime(
      value, [&]() -> absl::StatusOr<int64_t> { return ToMicros(Cluster(cluster).now()); });
  if (!t.ok()) throw UsageError(absl::StrCat("--", flag, ": ", t.status().message()));
  return *t;
}

int64_t Context::ParseDurationFlag(absl::string_view flag, absl::string_view value) {
  absl::StatusOr<int64_t> d = ParseDuration(value);
  if (!d.ok()) throw UsageError(absl::StrCat("--", flag, ": ", d.status().message()));
  return *d;
}

void Context::ReadMessageFile(const std::string& path, google::protobuf::Message* msg) {
  std::stringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(path);
    if (!in) throw CliError(absl::StrCat(path, ": cannot open the file"));
    text << in.rdbuf();
  }
  absl::Status st = resched::api::ParseJsonOrYaml(text.str(), msg);
  if (!st.ok()) throw CliError(absl::StrCat(path, ": ", st.message()));
}

std::string AnswerJson(const google::protobuf::Message& msg, bool indented) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = indented;
  options.preserve_proto_field_names = true;
  std::string text;
  auto st = google::protobuf::util::MessageToJsonString(msg, &text, options);
  if (!st.ok())
    throw CliError(absl::StrCat("cannot print the answer as JSON: ", st.message().as_string()));
  return text;
}

void Context::PrintJson(const google::protobuf::Message& msg) {
  const std::string text = AnswerJson(msg, true);
  out << text;
  if (text.empty() || text.back() != '\n') out << '\n';
}

}  // namespace resched::cli
