#include "server/process/writer_router.h"

#include "absl/strings/str_cat.h"
#include "server/base/status_details.h"

namespace resched::server {
namespace {

// About the time a takeover takes once the writer's lease has expired.
constexpr absl::Duration kTakeoverRetry = absl::Milliseconds(200);

CallRoute Refuse(const std::string& why) {
  return CallRoute{.kind = CallRoute::Kind::kRefuse,
                   .replica = {},
                   .address = {},
                   .refusal = WithRetryDelay(absl::UnavailableError(why), kTakeoverRetry)};
}

}  // namespace

WriterRouter::WriterRouter(const EtcdJournalStore& store) : store_(store) {}

CallRoute WriterRouter::Route(absl::string_view /*cluster*/) const {
  if (serving_) return CallRoute{};
  const EtcdWriter writer = store_.writer();
  if (writer.replica_id.empty()) {
    return Refuse("no replica writes the journal now (a takeover is under way); retry");
  }
  if (writer.replica_id == store_.replica_id()) {
    return Refuse(absl::StrCat("replica ", writer.replica_id,
                               " is taking over and reading the journal; retry"));
  }
  if (writer.address.empty()) {
    return Refuse(absl::StrCat("replica ", writer.replica_id,
                               " writes the journal but has not said where it serves yet; retry"));
  }
  return CallRoute{.kind = CallRoute::Kind::kForward,
                   .replica = writer.replica_id,
                   .address = writer.address,
                   .refusal = {}};
}

}  // namespace resched::server
