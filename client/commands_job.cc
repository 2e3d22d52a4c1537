// job submit | get | list | cancel | event
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/commands.h"
#include "client/models.h"
#include "client/render.h"

namespace resched::cli {
namespace {

using resched::v1::Job;
using Stub = resched::v1::Resched::StubInterface;

constexpr absl::string_view kSubmitUsage =
    R"(usage: resched job submit MODEL [--cluster NAME] [flags]
Submits a job; the cluster's policy places it, and the placement is printed.
MODEL is one of
  --rigid K:DUR                     exactly K processors for DUR
  --amdahl T1:ALPHA[:KMIN[:KMAX]]   moldable, t(k) = T1 (ALPHA + (1 - ALPHA) / k)
  --downey T1:A:SIGMA[:KMIN[:KMAX]] moldable, Downey's model (average parallelism A)
  --table K:DUR,K:DUR,...           moldable, only the listed widths
  --pow2 DUR,DUR,...                moldable, widths 1, 2, 4, ... with these times
  --ceil REQPROCS:DUR               t(n) = ceil(REQPROCS / n) DUR
  -f FILE                           a JobSpec in JSON or YAML ("-": stdin); flags override it
flags:
  --cluster NAME      the cluster (default "default")
  --release TIME      earliest start (default: now)
  --deadline TIME     completion bound the job asks for
  --weight W          weight (default 1)
  --owner OWNER       user or tenant
  --name NAME         a label
  --dry-run           show where the job would go; change nothing
  --request-id ID     makes a retry safe
)";
constexpr absl::string_view kGetUsage = R"(usage: resched job get ID [--cluster NAME]
Shows a job.
)";
constexpr absl::string_view kListUsage =
    R"(usage: resched job list [--cluster NAME] [--state STATE,...]
Lists the jobs in submission order.
  --state STATES   only these: queued, running, finished, failed, cancelled (comma-separated)
)";
constexpr absl::string_view kCancelUsage =
    R"(usage: resched job cancel ID [--cluster NAME] [--request-id ID]
Cancels a queued or running job.
)";
constexpr absl::string_view kEventUsage =
    R"(usage: resched job event ID started|finished|failed [--at TIME] [--cluster NAME]
Reports what really happened to a job.
  --at TIME   when (default: the cluster's now)
)";

void PrintJob(Context& ctx, const std::string& cluster, const Job& job) {
  if (ctx.json) {
    ctx.PrintJson(job);
  } else {
    ctx.out << RenderJobTable({&job}, ctx.StyleOf(cluster));
  }
}

int Submit(Context& ctx, const ParsedArgs& args) {
  resched::v1::SubmitJobRequest request;
  request.set_cluster(ClusterFlag(args));
  auto* spec = request.mutable_job();
  if (auto file = args.Get("file")) Context::ReadMessageFile(*file, spec);
  std::string model_flag;
  for (absl::string_view flag : ModelFlagNames()) {
    if (!args.Has(flag)) continue;
    if (!model_flag.empty()) {
      throw UsageError(absl::StrCat("give one runtime model, not --", model_flag, " and --", flag));
    }
    model_flag = std::string(flag);
    absl::Status st = ParseModelFlag(flag, *args.Get(flag), spec->mutable_model());
    if (!st.ok()) throw UsageError(std::string(st.message()));
  }
  if (!spec->has_model()) {
    throw UsageError(
        "give a runtime model (--rigid, --amdahl, --downey, --table, --pow2, --ceil or -f)");
  }
  const std::string& cluster = request.cluster();
  if (auto t = args.Get("release")) {
    *spec->mutable_release() = ToProtoTimestamp(ctx.ParseTimeFlag(cluster, "release", *t));
  }
  if (auto t = args.Get("deadline")) {
    *spec->mutable_deadline() = ToProtoTimestamp(ctx.ParseTimeFlag(cluster, "deadline", *t));
  }
  if (auto w = args.Get("weight")) spec->set_weight(DoubleFlag("weight", *w));
  if (auto o = args.Get("owner")) spec->set_owner(*o);
  if (auto n = args.Get("name")) spec->set_name(*n);
  request.set_dry_run(args.Has("dry-run"));
  request.set_request_id(args.GetOr("request-id", ""));

  resched::v1::SubmitJobResponse response = ctx.Call(&Stub::SubmitJob, request);
  if (ctx.json) {
    ctx.PrintJson(response);
    return 0;
  }
  TimeStyle style = ctx.StyleOf(cluster);
  if (request.dry_run()) ctx.out << "dry run: nothing was changed\n";
  ctx.out << RenderJobTable({&response.job()}, style);
  if (response.moved_jobs_size() > 0) {
    ctx.out << "\nmoved " << response.moved_jobs_size() << " queued job(s):\n"
            << RenderJobTable(Pointers(response.moved_jobs()), style);
  }
  return 0;
}

int Get(Context& ctx, const ParsedArgs& args) {
  resched::v1::GetJobRequest request;
  request.set_cluster(ClusterFlag(args));
  request.set_id(args.positional()[0]);
  Job job = ctx.Call(&Stub::GetJob, request);
  if (ctx.json) {
    ctx.PrintJson(job);
  } else {
    ctx.out << RenderJobDetails(job, ctx.StyleOf(request.cluster()));
  }
  return 0;
}

resched::v1::JobState ParseState(absl::string_view text) {
  std::string upper = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(text));
  if (upper == "CANCELED") upper = "CANCELLED";
  resched::v1::JobState state;
  if (!resched::v1::JobState_Parse(upper, &state) || state == resched::v1::JOB_STATE_UNSPECIFIED) {
    throw UsageError(absl::StrCat("--state ", text,
                                  ": expected queued, running, finished, failed or cancelled"));
  }
  return state;
}

int List(Context& ctx, const ParsedArgs& args) {
  resched::v1::ListJobsRequest request;
  request.set_cluster(ClusterFlag(args));
  for (const std::string& states : args.All("state")) {
    for (absl::string_view s : absl::StrSplit(states, ',', absl::SkipWhitespace())) {
      request.add_states(ParseState(s));
    }
  }
  resched::v1::ListJobsResponse all;
  do {
    resched::v1::ListJobsResponse page = ctx.Call(&Stub::ListJobs, request);
    all.mutable_jobs()->MergeFrom(page.jobs());
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  if (ctx.json) {
    ctx.PrintJson(all);
  } else {
    ctx.out << RenderJobTable(Pointers(all.jobs()), ctx.StyleOf(request.cluster()));
  }
  return 0;
}

int Cancel(Context& ctx, const ParsedArgs& args) {
  resched::v1::CancelJobRequest request;
  request.set_cluster(ClusterFlag(args));
  request.set_id(args.positional()[0]);
  request.set_request_id(args.GetOr("request-id", ""));
  PrintJob(ctx, request.cluster(), ctx.Call(&Stub::CancelJob, request));
  return 0;
}

int Event(Context& ctx, const ParsedArgs& args) {
  resched::v1::ReportJobEventRequest request;
  request.set_cluster(ClusterFlag(args));
  request.set_id(args.positional()[0]);
  request.set_kind(EventKindArg(args.positional()[1]));
  if (auto t = args.Get("at")) {
    *request.mutable_time() = ToProtoTimestamp(ctx.ParseTimeFlag(request.cluster(), "at", *t));
  }
  request.set_request_id(args.GetOr("request-id", ""));
  PrintJob(ctx, request.cluster(), ctx.Call(&Stub::ReportJobEvent, request));
  return 0;
}

}  // namespace

void AddJobCommands(std::vector<Command>& commands) {
  std::vector<FlagSpec> submit = {{"cluster"},   {"file", 'f'}, {"release"}, {"deadline"},
                                  {"weight"},    {"owner"},     {"name"},    {"dry-run", 0, false},
                                  {"request-id"}};
  for (absl::string_view model : ModelFlagNames()) submit.push_back({model});
  commands.push_back({"job", "submit", kSubmitUsage, submit, 0, 0, Submit});
  commands.push_back({"job", "get", kGetUsage, {{"cluster"}}, 1, 1, Get});
  commands.push_back(
      {"job", "list", kListUsage, {{"cluster"}, {"state", 0, true, true}}, 0, 0, List});
  commands.push_back({"job", "cancel", kCancelUsage, {{"cluster"}, {"request-id"}}, 1, 1, Cancel});
  commands.push_back(
      {"job", "event", kEventUsage, {{"cluster"}, {"at"}, {"request-id"}}, 2, 2, Event});
}

}  // namespace resched::cli
