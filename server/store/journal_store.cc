#include "server/store/journal_store.h"

#include "absl/strings/str_cat.h"

namespace resched::server {

absl::Status JournalStore::ScanAfter(const std::function<absl::Status(const StoredRecord&)>& fn,
                                     const std::string& cluster, std::int64_t after) const {
  std::int64_t snapshot_lsn = 0;
  absl::Status snapshots = ScanSnapshots(
      [&](const StoredRecord& snapshot) {
        snapshot_lsn = snapshot.lsn;
        return absl::OkStatus();
      },
      &cluster);
  if (!snapshots.ok()) return snapshots;
  if (snapshot_lsn > after) {
    return absl::OutOfRangeError(absl::StrCat(name(), ": the records of cluster '", cluster,
                                              "' up to LSN ", snapshot_lsn,
                                              " are in its snapshot now"));
  }
  return Scan(
      [&](const StoredRecord& record) {
        return record.lsn > after ? fn(record) : absl::OkStatus();
      },
      &cluster);
}

}  // namespace resched::server
