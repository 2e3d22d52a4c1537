// Where a journal (server/store/journal.h) keeps its records and snapshots. The journal gives
// records their LSNs, batches them (group commit), tells writers when theirs are durable and
// probes a failing store; the store only writes a batch all or nothing, reads back and compacts.
// The journal calls the writing functions from one thread at a time; Scan and ScanSnapshots may
// run beside them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace resched::server {

struct StoredRecord {
  std::int64_t lsn = 0;
  std::string cluster;
  std::string payload;
};

class JournalStore {
 public:
  virtual ~JournalStore() = default;

  // What errors and logs call the store ("data directory DIR"), and where its records are (a
  // file), for the lines that name a record.
  virtual const std::string& name() const = 0;
  virtual const std::string& location() const = 0;
  // As the store opened: the largest LSN it holds a record or a snapshot at (0: none); why it
  // cannot be written now (empty: it can; the disk is full, say), so that the journal starts
  // refusing changes and probing; what the open found of an unclean stop, and whether it went
  // on past data it lost (Journal::recovery_note, lost_data).
  virtual std::int64_t last_lsn() const = 0;
  virtual const std::string& open_fault() const = 0;
  virtual const std::string& recovery_note() const = 0;
  virtual bool lost_data() const = 0;

  // How much one commit may hold: the journal commits a longer queue in several batches.
  virtual std::size_t max_batch_records() const { return SIZE_MAX; }
  virtual std::int64_t max_batch_bytes() const { return INT64_MAX; }

  // Writes `batch`, in LSN order, all or nothing; UNAVAILABLE naming the store when it cannot.
  virtual absl::Status Commit(const std::vector<StoredRecord>& batch) = 0;
  // A small write that tells whether commits would succeed again.
  virtual absl::Status Probe() = 0;
  // Replaces `cluster`'s snapshot with `payload`, the cluster after record `lsn`, and drops its
  // records up to `lsn`, in one write.
  virtual absl::Status WriteSnapshot(const std::string& cluster, std::int64_t lsn,
                                     std::string_view payload) = 0;
  // Drops `cluster`'s snapshot and records before `lsn`.
  virtual absl::Status DropClusterBefore(const std::string& cluster, std::int64_t lsn) = 0;

  // Every record in LSN order (one cluster's only, when given), and every snapshot in LSN
  // order; DATA_LOSS naming the store and the record or snapshot that fails its checksum. An
  // error of `fn` stops the scan and is returned.
  virtual absl::Status Scan(const std::function<absl::Status(const StoredRecord&)>& fn,
                            const std::string* cluster) const = 0;
  virtual absl::Status ScanSnapshots(const std::function<absl::Status(const StoredRecord&)>& fn,
                                     const std::string* cluster) const = 0;
  // `cluster`'s records after LSN `after`, in LSN order, for a copy of the cluster that has the
  // ones up to `after` (a replica following another's cluster, docs/ha.md); OUT_OF_RANGE when
  // some of them are gone into a snapshot, so that the copy must be read again whole.
  virtual absl::Status ScanAfter(const std::function<absl::Status(const StoredRecord&)>& fn,
                                 const std::string& cluster, std::int64_t after) const;

  // Caps what the store may hold, so that tests can fill the "disk" (0 lifts the cap);
  // UNIMPLEMENTED where the store has no such cap.
  virtual absl::Status SetSizeLimitForTest(std::int64_t pages) {
    (void)pages;
    return absl::UnimplementedError("this journal store has no size limit for tests");
  }
};

}  // namespace resched::server
