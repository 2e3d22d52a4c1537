// WfCommons JSON reader (nlohmann-json); schema versions and the run-time mapping (Aida &
// Casanova 2008, §3.1) are documented in wfcommons.h and workflow_import.h.
#include "core/workload/wfcommons.h"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace resched {
namespace {

using Json = nlohmann::json;

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// The member `key` of `object` (at `path`) if it is present and not null.
const Json* Member(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

absl::StatusOr<const Json*> ArrayMember(const Json& object, const std::string& path,
                                        const char* key) {
  const Json* member = Member(object, key);
  if (member == nullptr) return Invalid(absl::StrCat(path, ".", key, " is missing"));
  if (!member->is_array()) return Invalid(absl::StrCat(path, ".", key, " must be an array"));
  if (member->size() > static_cast<std::size_t>(kMaxWorkflowTasks)) {
    return Invalid(absl::StrCat(path, ".", key, " has ", member->size(), " entries, more than ",
                                kMaxWorkflowTasks));
  }
  return member;
}

// A task's identifier: "id", or "name" for files that predate ids.
absl::StatusOr<std::string> TaskId(const Json& task, const std::string& path) {
  if (!task.is_object()) return Invalid(absl::StrCat(path, " must be an object"));
  for (const char* key : {"id", "name"}) {
    if (const Json* v = Member(task, key); v != nullptr) {
      if (!v->is_string()) return Invalid(absl::StrCat(path, ".", key, " must be a string"));
      std::string id = v->get<std::string>();
      if (id.empty()) return Invalid(absl::StrCat(path, ".", key, " is empty"));
      return id;
    }
  }
  return Invalid(absl::StrCat(path, " has neither an id nor a name"));
}

// The recorded run time in seconds: "runtimeInSeconds" (WfFormat >= 1.3) or "runtime" (older).
absl::StatusOr<RuntimeModel> TaskModel(const Json& task, const std::string& path,
                                       const WorkflowImportOptions& options) {
  for (const char* key : {"runtimeInSeconds", "runtime"}) {
    const Json* v = Member(task, key);
    if (v == nullptr) continue;
    const std::string field = absl::StrCat(path, ".", key);
    if (!v->is_number()) return Invalid(absl::StrCat(field, " must be a number"));
    return RecordedRuntimeModel(v->get<double>(), field, options);
  }
  return Invalid(absl::StrCat(path, ".runtimeInSeconds is missing"));
}

class Builder {
 public:
  explicit Builder(const WorkflowImportOptions& options) : options_(options) {}

  absl::Status AddTask(const Json& task, const std::string& path) {
    absl::StatusOr<std::string> id = TaskId(task, path);
    if (!id.ok()) return id.status();
    if (!index_.emplace(*id, static_cast<int>(dag_.tasks.size())).second) {
      return Invalid(absl::StrCat(path, ".id '", *id, "' is used twice"));
    }
    dag_.tasks.push_back(Task{*id, RuntimeModel()});
    return absl::OkStatus();
  }

  // Adds the edges named by the task's parents and children lists (both optional).
  absl::Status AddLinks(int t, const Json& task, const std::string& path) {
    for (const char* key : {"parents", "children"}) {
      const Json* list = Member(task, key);
      if (list == nullptr) continue;
      const std::string field = absl::StrCat(path, ".", key);
      if (!list->is_array()) return Invalid(absl::StrCat(field, " must be an array"));
      for (std::size_t i = 0; i < list->size(); ++i) {
        const Json& ref = (*list)[i];
        const std::string where = absl::StrCat(field, "[", i, "]");
        if (!ref.is_string()) return Invalid(absl::StrCat(where, " must be a string"));
        auto it = index_.find(ref.get<std::string>());
        if (it == index_.end()) {
          return Invalid(absl::StrCat(where, ": unknown task '", ref.get<std::string>(), "'"));
        }
        const int other = it->second;
        if (other == t) return Invalid(absl::StrCat(where, ": task depends on itself"));
        const bool parent = std::string_view(key) == "parents";
        edges_.insert(parent ? std::pair(other, t) : std::pair(t, other));
      }
    }
    return absl::OkStatus();
  }

  int Find(const std::string& id) const {
    auto it = index_.find(id);
    return it == index_.end() ? -1 : it->second;
  }
  Dag& dag() { return dag_; }
  const WorkflowImportOptions& options() const { return options_; }

  absl::StatusOr<Dag> Finish() {
    std::vector<std::pair<int, int>> sorted(edges_.begin(), edges_.end());
    std::sort(sorted.begin(), sorted.end());
    for (const auto& [from, to] : sorted) dag_.edges.push_back({from, to, 0});
    if (absl::Status status = ValidateDag(dag_, 1); !status.ok()) return status;
    return std::move(dag_);
  }

 private:
  const WorkflowImportOptions& options_;
  Dag dag_;
  absl::flat_hash_map<std::string, int> index_;
  absl::flat_hash_set<std::pair<int, int>> edges_;
};

// WfFormat 1.5: graph in workflow.specification, run times in workflow.execution.
absl::StatusOr<Dag> ReadSplit(const Json& workflow, Builder& b) {
  const Json& spec = *Member(workflow, "specification");
  if (!spec.is_object()) return Invalid("workflow.specification must be an object");
  absl::StatusOr<const Json*> tasks = ArrayMember(spec, "workflow.specification", "tasks");
  if (!tasks.ok()) return tasks.status();
  const std::string base = "workflow.specification.tasks";
  for (std::size_t i = 0; i < (*tasks)->size(); ++i) {
    if (auto s = b.AddTask((**tasks)[i], absl::StrCat(base, "[", i, "]")); !s.ok()) return s;
  }
  for (std::size_t i = 0; i < (*tasks)->size(); ++i) {
    const int t = static_cast<int>(i);
    if (auto s = b.AddLinks(t, (**tasks)[i], absl::StrCat(base, "[", i, "]")); !s.ok()) return s;
  }

  const Json* execution = Member(workflow, "execution");
  if (execution == nullptr) return Invalid("workflow.execution is missing (run times)");
  if (!execution->is_object()) return Invalid("workflow.execution must be an object");
  absl::StatusOr<const Json*> runs = ArrayMember(*execution, "workflow.execution", "tasks");
  if (!runs.ok()) return runs.status();
  std::vector<bool> timed(b.dag().tasks.size(), false);
  for (std::size_t i = 0; i < (*runs)->size(); ++i) {
    const Json& run = (**runs)[i];
    const std::string path = absl::StrCat("workflow.execution.tasks[", i, "]");
    absl::StatusOr<std::string> id = TaskId(run, path);
    if (!id.ok()) return id.status();
    const int t = b.Find(*id);
    if (t < 0) return Invalid(absl::StrCat(path, ".id: unknown task '", *id, "'"));
    if (timed[t]) return Invalid(absl::StrCat(path, ".id: task '", *id, "' is timed twice"));
    absl::StatusOr<RuntimeModel> model = TaskModel(run, path, b.options());
    if (!model.ok()) return model.status();
    b.dag().tasks[t].model = *std::move(model);
    timed[t] = true;
  }
  for (std::size_t t = 0; t < timed.size(); ++t) {
    if (!timed[t]) {
      return Invalid(absl::StrCat("workflow.execution.tasks has no entry for task '",
                                  b.dag().tasks[t].name, "' (", base, "[", t, "])"));
    }
  }
  return b.Finish();
}

// WfFormat <= 1.4 ("tasks") and WorkflowHub 0.x ("jobs"): one list with everything.
absl::StatusOr<Dag> ReadCombined(const Json& workflow, const char* key, Builder& b) {
  absl::StatusOr<const Json*> tasks = ArrayMember(workflow, "workflow", key);
  if (!tasks.ok()) return tasks.status();
  const std::string base = absl::StrCat("workflow.", key);
  for (std::size_t i = 0; i < (*tasks)->size(); ++i) {
    if (auto s = b.AddTask((**tasks)[i], absl::StrCat(base, "[", i, "]")); !s.ok()) return s;
  }
  for (std::size_t i = 0; i < (*tasks)->size(); ++i) {
    const Json& task = (**tasks)[i];
    const std::string path = absl::StrCat(base, "[", i, "]");
    const int t = static_cast<int>(i);
    if (auto s = b.AddLinks(t, task, path); !s.ok()) return s;
    absl::StatusOr<RuntimeModel> model = TaskModel(task, path, b.options());
    if (!model.ok()) return model.status();
    b.dag().tasks[t].model = *std::move(model);
  }
  return b.Finish();
}

}  // namespace

absl::StatusOr<Dag> ReadWfCommons(std::istream& in, const WorkflowImportOptions& options) {
  if (absl::Status status = CheckWorkflowImportOptions(options); !status.ok()) return status;
  Json root;
  try {
    root = Json::parse(in);
  } catch (const Json::parse_error& e) {
    return Invalid(absl::StrCat("JSON syntax error at byte ", e.byte, ": ", e.what()));
  } catch (const std::exception& e) {
    return Invalid(absl::StrCat("JSON error: ", e.what()));
  }
  if (!root.is_object()) return Invalid("the document must be a JSON object");
  const Json* workflow = Member(root, "workflow");
  if (workflow == nullptr) return Invalid("workflow is missing");
  if (!workflow->is_object()) return Invalid("workflow must be an object");
  Builder builder(options);
  if (Member(*workflow, "specification") != nullptr) return ReadSplit(*workflow, builder);
  if (Member(*workflow, "tasks") != nullptr) return ReadCombined(*workflow, "tasks", builder);
  if (Member(*workflow, "jobs") != nullptr) return ReadCombined(*workflow, "jobs", builder);
  return Invalid("workflow.specification.tasks is missing (nor workflow.tasks or workflow.jobs)");
}

}  // namespace resched
