// The subcommands: `resched <resource> [verb] [flags]`. Each commands_*.cc file adds the
// commands of one resource.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "client/args.h"
#include "client/context.h"

namespace resched::cli {

struct Command {
  absl::string_view resource;         // "cluster"
  absl::string_view verb;             // "create"; empty for a command without a verb ("replan")
  absl::string_view usage;            // "usage: resched ..." and the flags, ending in a newline
  std::vector<FlagSpec> flags;        // besides the global ones
  size_t min_args = 0, max_args = 0;  // positional arguments
  // Returns the exit status; throws UsageError, CliError or RpcError.
  std::function<int(Context&, const ParsedArgs&)> run;
};

void AddClusterCommands(std::vector<Command>& commands);
void AddJobCommands(std::vector<Command>& commands);
void AddReservationCommands(std::vector<Command>& commands);
void AddScheduleCommands(std::vector<Command>& commands);  // schedule show, clock advance
void AddPlanCommands(std::vector<Command>& commands);      // algorithms, replan
// dag reserve, query-deadline (alias query), offers, show, event, release, list
void AddDagCommands(std::vector<Command>& commands);
void AddTraceCommands(std::vector<Command>& commands);   // trace export
void AddHealthCommands(std::vector<Command>& commands);  // health

// All commands, in the order of the help text.
const std::vector<Command>& AllCommands();

// Helpers shared by the commands.
// --cluster, defaulting to "default".
std::string ClusterFlag(const ParsedArgs& args);
// An integer flag value; throws UsageError.
int32_t IntFlag(absl::string_view flag, absl::string_view value);
double DoubleFlag(absl::string_view flag, absl::string_view value);
// --param key=value pairs into `spec`'s params; throws UsageError. A value that is not a number
// names one of the parameter's choices (`resched algorithms` lists them): the server's list of
// algorithms says which index it is, so `spec` must name its algorithm then.
void ParseParams(Context& ctx, const ParsedArgs& args, resched::v1::AlgorithmSpec* spec);
// started, finished or failed (any case), the kind of `job event` and `dag event`; throws
// UsageError.
resched::v1::JobEventKind EventKindArg(absl::string_view value);
// makespan, weighted (completion), stretch (max stretch) or bicriteria; throws UsageError.
resched::v1::ReplanObjective ObjectiveFlag(absl::string_view flag, absl::string_view value);

}  // namespace resched::cli
