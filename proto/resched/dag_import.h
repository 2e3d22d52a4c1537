// DAG files as the API takes them (the CLI's `dag reserve` and `dag query-deadline`, the web
// view's what-if): a resched Dag (JSON or YAML of the message), a WfCommons JSON workflow or a
// Pegasus DAX XML file. The workflow formats go
// through core's importers (core/workload), which give every task an Amdahl model; the core
// Dag is then converted to the API message.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/model/dag.h"
#include "core/workload/workflow_import.h"
#include "resched/v1/types.pb.h"

namespace resched::api {

enum class DagFormat { kAuto, kDag, kWfCommons, kDax };

// "dag", "wfcommons", "dax" (any case); INVALID_ARGUMENT "NAME: expected dag, wfcommons or
// dax" otherwise (the caller says which flag or parameter it came from).
absl::StatusOr<DagFormat> ParseDagFormat(absl::string_view name);
absl::string_view DagFormatName(DagFormat format);

// The format of a file from its name and text: DAX when the name ends in .xml or .dax or the
// text starts with '<' (after blanks); WfCommons when the text is a JSON object with a
// "workflow" object; else a resched Dag. Never kAuto.
DagFormat DetectDagFormat(absl::string_view path, absl::string_view text);

// Parses `text` (from `path`, used for the detection only) in `format` (kAuto: detected).
// `options` applies to the workflow formats. Errors say which format was read and what is
// wrong, in the importer's or the JSON/YAML parser's words.
absl::StatusOr<resched::v1::Dag> ParseDagText(absl::string_view path, absl::string_view text,
                                              DagFormat format,
                                              const resched::WorkflowImportOptions& options);

}  // namespace resched::api
