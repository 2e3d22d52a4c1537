#include "proto/resched/dag_import.h"

#include <nlohmann/json.hpp>
#include <sstream>
#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/workload/dax.h"
#include "core/workload/wfcommons.h"
#include "proto/resched/convert.h"
#include "proto/resched/yaml_json.h"

namespace resched::api {
namespace {

namespace pb = resched::v1;

}  // namespace

absl::StatusOr<DagFormat> ParseDagFormat(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  if (lower == "dag") return DagFormat::kDag;
  if (lower == "wfcommons") return DagFormat::kWfCommons;
  if (lower == "dax") return DagFormat::kDax;
  return absl::InvalidArgumentError(absl::StrCat(name, ": expected dag, wfcommons or dax"));
}

absl::string_view DagFormatName(DagFormat format) {
  switch (format) {
    case DagFormat::kDag:
      return "dag";
    case DagFormat::kWfCommons:
      return "wfcommons";
    case DagFormat::kDax:
      return "dax";
    case DagFormat::kAuto:
      break;
  }
  return "auto";
}

DagFormat DetectDagFormat(absl::string_view path, absl::string_view text) {
  std::string lower_path = absl::AsciiStrToLower(path);
  if (absl::EndsWith(lower_path, ".xml") || absl::EndsWith(lower_path, ".dax")) {
    return DagFormat::kDax;
  }
  absl::string_view body = absl::StripLeadingAsciiWhitespace(text);
  if (absl::StartsWith(body, "<")) return DagFormat::kDax;
  if (absl::StartsWith(body, "{")) {
    // A parse that fails is left to the Dag parser, whose errors say where.
    nlohmann::json doc = nlohmann::json::parse(body.begin(), body.end(), nullptr,
                                               /*allow_exceptions=*/false);
    if (doc.is_object()) {
      auto it = doc.find("workflow");
      if (it != doc.end() && it->is_object()) return DagFormat::kWfCommons;
    }
  }
  return DagFormat::kDag;
}

absl::StatusOr<pb::Dag> ParseDagText(absl::string_view path, absl::string_view text,
                                     DagFormat format,
                                     const resched::WorkflowImportOptions& options) {
  if (format == DagFormat::kAuto) format = DetectDagFormat(path, text);
  if (format == DagFormat::kDag) {
    pb::Dag dag;
    absl::Status st = ParseJsonOrYaml(std::string_view(text.data(), text.size()), &dag);
    if (!st.ok()) return st;
    return dag;
  }
  std::istringstream in{std::string(text)};
  const bool wfcommons = format == DagFormat::kWfCommons;
  absl::StatusOr<resched::Dag> dag =
      wfcommons ? resched::ReadWfCommons(in, options) : resched::ReadDax(in, options);
  if (!dag.ok()) {
    return absl::Status(dag.status().code(),
                        absl::StrCat(wfcommons ? "as a WfCommons workflow: " : "as a DAX file: ",
                                     dag.status().message()));
  }
  return resched::ToProto(*dag);
}

}  // namespace resched::api
