#include "server/auth/audit_targets.h"

#include <map>

#include "resched/v1/service.pb.h"

namespace resched::server {
namespace {

namespace pb = ::resched::v1;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// What the "id" field of each request that acts on one object names.
const std::map<std::string, std::string>& IdNames() {
  static const auto* const names = new std::map<std::string, std::string>{
      {pb::CancelJobRequest::descriptor()->full_name(), "job"},
      {pb::ReportJobEventRequest::descriptor()->full_name(), "job"},
      {pb::RemoveReservationRequest::descriptor()->full_name(), "reservation"},
      {pb::ReleaseDAGRequest::descriptor()->full_name(), "dag"},
      {pb::ReportDagTaskEventRequest::descriptor()->full_name(), "dag"},
  };
  return *names;
}

// A top-level string field's value, or empty.
std::string StringField(const Message& message, const char* name) {
  const FieldDescriptor* field = message.GetDescriptor()->FindFieldByName(name);
  if (field == nullptr || field->is_repeated() || field->type() != FieldDescriptor::TYPE_STRING) {
    return "";
  }
  return message.GetReflection()->GetString(message, field);
}

}  // namespace

AuditTargets RequestTargets(const Message& request) {
  AuditTargets targets;
  if (auto it = IdNames().find(request.GetDescriptor()->full_name()); it != IdNames().end()) {
    targets.emplace_back(it->second, StringField(request, "id"));
  }
  for (const char* flag : {"force", "dry_run", "commit", "displace_queued"}) {
    const FieldDescriptor* field = request.GetDescriptor()->FindFieldByName(flag);
    if (field != nullptr && field->type() == FieldDescriptor::TYPE_BOOL && !field->is_repeated() &&
        request.GetReflection()->GetBool(request, field)) {
      targets.emplace_back(flag, "true");
    }
  }
  if (const auto* report = dynamic_cast<const pb::ReportJobEventRequest*>(&request)) {
    targets.emplace_back("event", pb::JobEventKind_Name(report->kind()));
  }
  if (const auto* report = dynamic_cast<const pb::ReportDagTaskEventRequest*>(&request)) {
    targets.emplace_back("task", report->task());
    targets.emplace_back("event", pb::JobEventKind_Name(report->kind()));
  }
  return targets;
}

AuditTargets MadeTargets(const Message& response) {
  AuditTargets made;
  const auto add = [&](const char* name, const std::string& id) {
    if (!id.empty()) made.emplace_back(name, id);
  };
  if (const auto* submitted = dynamic_cast<const pb::SubmitJobResponse*>(&response)) {
    add("made_job", submitted->job().id());
  } else if (const auto* reservation = dynamic_cast<const pb::Reservation*>(&response)) {
    add("made_reservation", reservation->id());
  } else {
    add("made_dag", StringField(response, "dag_id"));
  }
  return made;
}

}  // namespace resched::server
