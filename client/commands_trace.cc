// trace export
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/commands.h"
#include "client/trace_export.h"

namespace resched::cli {
namespace {

using Stub = resched::v1::Resched::StubInterface;
namespace v1 = resched::v1;

constexpr absl::string_view kExportUsage =
    R"(usage: resched trace export --format swf|perfetto [--cluster NAME] [-o FILE]
Writes what the cluster ran (the jobs it retains: submit, start, end, width, status) as a
Standard Workload Format log (swf: replay it with resched-experiment or another simulator), or
as Chrome/Perfetto trace-event JSON (perfetto: one track per processor, with the reservations
and DAG tasks; open it at https://ui.perfetto.dev).
  --format FORMAT  swf or perfetto
  --cluster NAME   the cluster (default "default")
  -o, --output FILE  where to write (default: standard output)
)";

// Every retained job, in submission order, a page at a time.
std::vector<v1::Job> AllJobs(Context& ctx, const std::string& cluster) {
  std::vector<v1::Job> jobs;
  v1::ListJobsRequest request;
  request.set_cluster(cluster);
  request.set_page_size(10'000);
  do {
    v1::ListJobsResponse page = ctx.Call(&Stub::ListJobs, request);
    for (v1::Job& job : *page.mutable_jobs()) jobs.push_back(std::move(job));
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return jobs;
}

int Export(Context& ctx, const ParsedArgs& args) {
  const std::string format = args.GetOr("format", "");
  if (format != "swf" && format != "perfetto") {
    throw UsageError(absl::StrCat("--format: swf or perfetto, got \"", format, "\""));
  }
  const std::string cluster = ClusterFlag(args);
  std::string text;
  if (format == "swf") {
    const v1::Cluster& described = ctx.Cluster(cluster);
    absl::StatusOr<SwfLog> log = JobsToSwf(AllJobs(ctx, cluster), described);
    if (!log.ok()) throw CliError(std::string(log.status().message()));
    std::ostringstream out;
    if (absl::Status s = WriteSwf(out, *log); !s.ok()) throw CliError(std::string(s.message()));
    text = out.str();
  } else {
    v1::GetScheduleRequest request;
    request.set_cluster(cluster);
    *request.mutable_from() = ToProtoTimestamp(0);  // everything retained
    request.set_include_finished(true);
    text = ScheduleToTraceEvents(ctx.Call(&Stub::GetSchedule, request)) + "\n";
  }
  const std::string output = args.GetOr("output", "-");
  if (output == "-") {
    ctx.out << text;
    return 0;
  }
  std::ofstream file(output, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) throw CliError(absl::StrCat("cannot write '", output, "'"));
  return 0;
}

}  // namespace

void AddTraceCommands(std::vector<Command>& commands) {
  commands.push_back(
      {"trace", "export", kExportUsage, {{"format"}, {"cluster"}, {"output", 'o'}}, 0, 0, Export});
}

}  // namespace resched::cli
