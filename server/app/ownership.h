// Tenants' work under bearer tokens (docs/security.md, "Tenants' work"): every job and DAG
// reservation records the tenant that made it; a user acts only on its own and sees other
// tenants' work as capacity only (allocations, without ids, names, labels or owners). Operators
// and admins run the whole cluster and see everything, as does every caller of a server without
// a tokens file (caller null).
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/plan/cluster_plan.h"
#include "resched/v1/service.pb.h"
#include "server/app/cluster_state.h"
#include "server/app/shared_event.h"
#include "server/auth/tokens.h"

namespace resched::server {

// Whether `caller` sees and acts on every tenant's work.
bool SeesAllTenants(const auth::Principal* caller);

// OK when `caller` may act on work owned by `owner`; otherwise NOT_FOUND as for an id that does
// not exist ("job 'j4' not found", with `what` "job 'j4'"), so that another tenant's ids cannot
// be told from unused ones.
absl::Status CheckOwner(const auth::Principal* caller, const std::string& owner,
                        absl::string_view what);

// The owner a submission by `caller` records, given the owner its request names (`field`, for
// the error): a user's own tenant (naming another is PERMISSION_DENIED); an operator or admin may
// submit on behalf of any tenant, its own by default. Without tokens, `requested` as it is.
absl::StatusOr<std::string> SubmissionOwner(const auth::Principal* caller,
                                            const std::string& requested, absl::string_view field);

// Another tenant's work as capacity only.
void RedactJob(::resched::v1::Job& job);
void RedactDag(::resched::v1::DagReservation& dag);

// Redacts, in what `caller` is about to receive, the work of tenants other than its own (nothing
// when it sees all tenants). A schedule's DAG task slots name only their DAG: `plan` tells whose.
void RedactForCaller(const auth::Principal* caller, ::resched::v1::Job& job);
void RedactForCaller(const auth::Principal* caller, ::resched::v1::Schedule& schedule,
                     const ClusterPlan& plan);
// JOB_CHANGED and DAG_* events; a SCHEDULE is redacted where it is built.
void RedactForCaller(const auth::Principal* caller, ::resched::v1::ScheduleEvent& event);

// A WatchSchedule stream as `caller` may see it: every event redacted before `inner` gets it.
class RedactingSink : public ScheduleSink {
 public:
  RedactingSink(std::shared_ptr<ScheduleSink> inner, std::shared_ptr<const auth::Principal> caller);
  void Push(const SharedEvent& event) override;
  void End(const absl::Status& status) override { inner_->End(status); }
  bool Closed() const override { return inner_->Closed(); }

 private:
  const std::shared_ptr<ScheduleSink> inner_;
  const std::shared_ptr<const auth::Principal> caller_;
};

}  // namespace resched::server
