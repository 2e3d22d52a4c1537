// Pegasus DAX reader (expat, SAX-style); the accepted elements and the run-time mapping (Aida &
// Casanova 2008, §3.1) are documented in dax.h and workflow_import.h.
#include "core/workload/dax.h"

#include <expat.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace resched {
namespace {

// Namespace processing splits "uri|local"; only the local part matters here.
constexpr char kNamespaceSeparator = '|';
constexpr std::size_t kChunkBytes = 1 << 16;

std::string_view LocalName(const XML_Char* name) {
  std::string_view s(name);
  const std::size_t bar = s.rfind(kNamespaceSeparator);
  return bar == std::string_view::npos ? s : s.substr(bar + 1);
}

const XML_Char* Attribute(const XML_Char** attrs, std::string_view key) {
  for (int i = 0; attrs[i] != nullptr; i += 2) {
    if (LocalName(attrs[i]) == key) return attrs[i + 1];
  }
  return nullptr;
}

struct PendingEdge {
  std::string parent;
  std::string child;
  long line = 0;
};

struct Job {
  std::string id;
  std::optional<std::string> runtime;  // attribute or pegasus profile text
  long line = 0;
};

class DaxParser {
 public:
  DaxParser() : parser_(XML_ParserCreateNS(nullptr, kNamespaceSeparator)) {
    XML_SetUserData(parser_, this);
    XML_SetElementHandler(parser_, &DaxParser::OnStart, &DaxParser::OnEnd);
    XML_SetCharacterDataHandler(parser_, &DaxParser::OnText);
  }
  ~DaxParser() { XML_ParserFree(parser_); }
  DaxParser(const DaxParser&) = delete;
  DaxParser& operator=(const DaxParser&) = delete;

  absl::Status Parse(std::istream& in) {
    if (parser_ == nullptr) return absl::ResourceExhaustedError("cannot create an XML parser");
    std::vector<char> buffer(kChunkBytes);
    while (true) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      const std::streamsize got = in.gcount();
      const bool last = got < static_cast<std::streamsize>(buffer.size());
      if (in.bad()) return absl::DataLossError("read error on the DAX stream");
      if (XML_Parse(parser_, buffer.data(), static_cast<int>(got), last) != XML_STATUS_OK) {
        if (!error_.ok()) return error_;
        return absl::InvalidArgumentError(
            absl::StrCat("line ", XML_GetCurrentLineNumber(parser_),
                         ": XML error: ", XML_ErrorString(XML_GetErrorCode(parser_))));
      }
      if (last) break;
    }
    if (!error_.ok()) return error_;
    if (!seen_root_) return absl::InvalidArgumentError("no <adag> element");
    return absl::OkStatus();
  }

  const std::vector<Job>& jobs() const { return jobs_; }
  const std::vector<PendingEdge>& edges() const { return edges_; }

 private:
  void Fail(const std::string& message) {
    if (!error_.ok()) return;
    error_ = absl::InvalidArgumentError(
        absl::StrCat("line ", XML_GetCurrentLineNumber(parser_), ": ", message));
    XML_StopParser(parser_, XML_FALSE);
  }

  long Line() const { return static_cast<long>(XML_GetCurrentLineNumber(parser_)); }

  void Start(std::string_view name, const XML_Char** attrs) {
    ++depth_;
    if (depth_ == 1) {
      if (name != "adag") {
        return Fail(absl::StrCat("the root element must be <adag>, got <", std::string(name), ">"));
      }
      seen_root_ = true;
      return;
    }
    if (depth_ == 2 && name == "job") {
      const XML_Char* id = Attribute(attrs, "id");
      if (id == nullptr || *id == '\0') return Fail("<job> has no id attribute");
      if (jobs_.size() >= static_cast<std::size_t>(kMaxWorkflowTasks)) {
        return Fail(absl::StrCat("more than ", kMaxWorkflowTasks, " <job> elements"));
      }
      Job job{id, std::nullopt, Line()};
      if (const XML_Char* runtime = Attribute(attrs, "runtime"); runtime != nullptr) {
        job.runtime = runtime;
      }
      jobs_.push_back(std::move(job));
      in_job_ = true;
      return;
    }
    if (depth_ == 3 && in_job_ && name == "profile") {
      const XML_Char* ns = Attribute(attrs, "namespace");
      const XML_Char* key = Attribute(attrs, "key");
      in_runtime_profile_ = ns != nullptr && key != nullptr && std::strcmp(ns, "pegasus") == 0 &&
                            std::strcmp(key, "runtime") == 0 && !jobs_.back().runtime.has_value();
      text_.clear();
      return;
    }
    if (depth_ == 2 && name == "child") {
      const XML_Char* ref = Attribute(attrs, "ref");
      if (ref == nullptr || *ref == '\0') return Fail("<child> has no ref attribute");
      child_ = ref;
      return;
    }
    if (name == "parent") {
      if (depth_ != 3 || child_.empty()) return Fail("<parent> outside a <child> element");
      const XML_Char* ref = Attribute(attrs, "ref");
      if (ref == nullptr || *ref == '\0') {
        return Fail(absl::StrCat("<parent> of child '", child_, "' has no ref attribute"));
      }
      edges_.push_back({ref, child_, Line()});
    }
  }

  void End(std::string_view name) {
    if (depth_ == 3 && in_runtime_profile_ && name == "profile") {
      jobs_.back().runtime = text_;
      in_runtime_profile_ = false;
    } else if (depth_ == 2 && name == "job") {
      in_job_ = false;
    } else if (depth_ == 2 && name == "child") {
      child_.clear();
    }
    --depth_;
  }

  static void XMLCALL OnStart(void* self, const XML_Char* name, const XML_Char** attrs) {
    static_cast<DaxParser*>(self)->Start(LocalName(name), attrs);
  }
  static void XMLCALL OnEnd(void* self, const XML_Char* name) {
    static_cast<DaxParser*>(self)->End(LocalName(name));
  }
  static void XMLCALL OnText(void* self, const XML_Char* text, int length) {
    auto* p = static_cast<DaxParser*>(self);
    if (p->in_runtime_profile_ && p->text_.size() < 64) p->text_.append(text, length);
  }

  XML_Parser parser_;
  absl::Status error_;
  int depth_ = 0;
  bool seen_root_ = false;
  bool in_job_ = false;
  bool in_runtime_profile_ = false;
  std::string text_;
  std::string child_;
  std::vector<Job> jobs_;
  std::vector<PendingEdge> edges_;
};

}  // namespace

absl::StatusOr<Dag> ReadDax(std::istream& in, const WorkflowImportOptions& options) {
  if (absl::Status status = CheckWorkflowImportOptions(options); !status.ok()) return status;
  DaxParser parser;
  if (absl::Status status = parser.Parse(in); !status.ok()) return status;

  Dag dag;
  absl::flat_hash_map<std::string, int> index;
  for (const Job& job : parser.jobs()) {
    const std::string where = absl::StrCat("line ", job.line, ": job '", job.id, "'");
    if (!index.emplace(job.id, static_cast<int>(dag.tasks.size())).second) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": id is used twice"));
    }
    if (!job.runtime.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(where, " has no runtime attribute"));
    }
    double seconds = 0;
    if (!absl::SimpleAtod(*job.runtime, &seconds)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": runtime must be a number of seconds, got '", *job.runtime, "'"));
    }
    absl::StatusOr<RuntimeModel> model =
        RecordedRuntimeModel(seconds, absl::StrCat(where, ": runtime"), options);
    if (!model.ok()) return model.status();
    dag.tasks.push_back(Task{job.id, *std::move(model)});
  }
  if (dag.tasks.empty()) return absl::InvalidArgumentError("<adag> has no <job> element");

  absl::flat_hash_set<std::pair<int, int>> edges;
  for (const PendingEdge& e : parser.edges()) {
    auto from = index.find(e.parent);
    auto to = index.find(e.child);
    if (to == index.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", e.line, ": <child ref='", e.child, "'>: unknown job"));
    }
    if (from == index.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", e.line, ": <parent ref='", e.parent, "'>: unknown job"));
    }
    if (from->second == to->second) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", e.line, ": job '", e.child, "' is its own parent"));
    }
    edges.insert({from->second, to->second});
  }
  std::vector<std::pair<int, int>> sorted(edges.begin(), edges.end());
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [from, to] : sorted) dag.edges.push_back({from, to, 0});
  if (absl::Status status = ValidateDag(dag, 1); !status.ok()) return status;
  return dag;
}

}  // namespace resched
