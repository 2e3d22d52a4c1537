// The gate every call passes before it runs, and what is written once it is answered: the
// caller's token and grants (server/auth/), its tenant's rate limit, the audit line of a call
// that may change state, the log line of a failed call, and the call metrics.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/model/cluster.h"
#include "server/app/application.h"
#include "server/app/call_helpers.h"
#include "server/auth/access.h"
#include "server/auth/audit_targets.h"
#include "server/auth/call_auth.h"
#include "server/base/log.h"

namespace resched::server {
namespace {

// The fields that reach the audit log and the server's log whatever the call's outcome, checked
// before anything is written: a cluster name as a cluster may have (core/model/cluster.h) and a
// request id within its bound.
absl::Status CheckGateFields(const IncomingCall& call) {
  if (absl::Status checked = CheckRequestId(call.request_id); !checked.ok()) return checked;
  if (call.cluster.empty()) return absl::OkStatus();  // the call says whether one is needed
  return ValidateClusterName(call.cluster, call.cluster_field);
}

// One line per failed call: what a person looks for first when a client reports an error.
void LogFailedCall(const char* method, const absl::Status& status, double seconds,
                   const std::string& trace_id, std::int64_t suppressed,
                   std::int64_t fault_suppressed) {
  const std::string code = absl::StatusCodeToString(status.code());
  LogFields fields = {{"method", method},
                      {"code", code},
                      {"error", std::string(status.message())},
                      {"ms", absl::StrFormat("%.3f", seconds * 1e3)}};
  if (!trace_id.empty()) fields.emplace_back("trace_id", trace_id);
  std::string message = absl::StrCat(method, " failed: ", code, ": ", status.message());
  if (suppressed > 0) {
    fields.emplace_back("suppressed_before", absl::StrCat(suppressed));
    absl::StrAppend(&message, " (", suppressed, " refused calls of this peer not logged before)");
  }
  if (fault_suppressed > 0) {
    fields.emplace_back("journal_fault_suppressed_before", absl::StrCat(fault_suppressed));
    absl::StrAppend(
        &message, " (", fault_suppressed,
        " calls refused while the journal cannot commit or their cluster moves not logged before)");
  }
  Log(LogLevel::kWarning, "call_failed", message, fields);
}

}  // namespace

Admission Application::Admit(const IncomingCall& call) const {
  Admission admission;
  admission.status = CheckGateFields(call);
  auth::CallAuthorization authorization;
  if (admission.status.ok() && tokens_ != nullptr) {
    authorization =
        auth::AuthorizeCall(*tokens_->Current(), call.authorization(), call.method, call.cluster);
    admission.status = authorization.status;
  }
  if (authorization.principal) {
    admission.principal =
        std::make_shared<const auth::Principal>(*std::move(authorization.principal));
  }
  // Calls that change nothing are not audited; a method without a rule is refused at the gate,
  // and the refusal is.
  std::optional<auth::MethodAccess> access;
  if (audit_ != nullptr) access = auth::AccessOf(call.method);
  if (audit_ != nullptr && (!access || access->changes)) {
    auto entry = std::make_shared<auth::AuditEntry>();
    if (admission.principal != nullptr) {
      entry->tenant = admission.principal->tenant;
      entry->role = std::string(auth::RoleName(admission.principal->role));
    }
    entry->method = call.method;
    entry->cluster = std::string(call.cluster);
    entry->request_id = std::string(call.request_id);
    entry->trace_id = call.trace_id;
    entry->peer = call.peer();
    if (call.request != nullptr) entry->targets = RequestTargets(*call.request);
    admission.audit = std::move(entry);
  }
  if (admission.status.ok() && admission.principal != nullptr && rate_limiter_ != nullptr) {
    admission.status = rate_limiter_->Admit(admission.principal->tenant, absl::Now());
  }
  if (!admission.status.ok()) {
    admission.refused_peer = admission.audit ? admission.audit->peer : call.peer();
  }
  return admission;
}

void Application::Finish(const char* method, const Admission& admission, const absl::Status& status,
                         const google::protobuf::Message& response, double seconds,
                         const std::string& trace_id) {
  metrics_.ObserveCall(method, status.code(), seconds);
  // A stranger's refused calls write a bounded number of lines (server/auth/denied_lines.h).
  std::int64_t suppressed = 0;
  bool write_lines = admission.refused_peer.empty() ||
                     denied_lines_.Admit(admission.refused_peer, absl::Now(), &suppressed);
  // While the journal cannot commit, or no replica serves the call's cluster (a takeover), every
  // change fails alike: a line a second says so. The journal is not this replica's to ask about
  // for a call served elsewhere: it may be taking it over right now.
  const bool journal_fault =
      status.code() == absl::StatusCode::kUnavailable &&
      (!admission.served_here || (journal_ != nullptr && !journal_->CheckWritable().ok()));
  std::int64_t fault_suppressed = 0;
  if (journal_fault && write_lines) {
    write_lines = journal_fault_lines_.Admit(absl::Now(), &fault_suppressed);
  }
  if (!status.ok() && write_lines) {
    LogFailedCall(method, status, seconds, trace_id, suppressed, fault_suppressed);
  }
  if (admission.audit && write_lines) {
    auth::AuditEntry& entry = *admission.audit;
    entry.suppressed = suppressed;
    if (status.ok()) {
      AuditTargets made = MadeTargets(response);
      entry.targets.insert(entry.targets.end(), made.begin(), made.end());
    }
    entry.time = absl::Now();
    entry.code = absl::StatusCodeToString(status.code());
    entry.error = std::string(status.message());
    audit_->Record(entry);
  }
}

}  // namespace resched::server
