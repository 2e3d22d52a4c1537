// What an online policy remembers between calls, for a snapshot and the journal
// (docs/durability.md): the same things its Copy keeps; memoized work is left out, and a
// restored policy recomputes it. Each policy writes tables of its own, by name, and checks them
// when it loads them, so that a policy with state of its own adds no field here, to the
// snapshot's schema or to its conversions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/model/job.h"

namespace resched {

struct PolicyImage {
  // One remembered item: a job (empty when the table is not about jobs) and integers.
  struct Row {
    JobId job;
    std::vector<std::int64_t> values;
    friend bool operator==(const Row&, const Row&) = default;
    friend bool operator<(const Row& a, const Row& b) {
      return std::tie(a.job, a.values) < std::tie(b.job, b.values);
    }
  };
  using Table = std::vector<Row>;
  // By name, each sorted (Put), so that two images of the same state are equal.
  std::map<std::string, Table> tables;

  bool empty() const { return tables.empty(); }
  // Stores `rows` under `name`, sorted: a policy may read them off a hash map.
  void Put(const std::string& name, Table rows);
  // The table called `name`; nullptr when the image has none.
  const Table* Find(const std::string& name) const;
  // DATA_LOSS naming the first table not in `kept`: a table `policy` does not keep.
  absl::Status KeepsOnly(std::initializer_list<absl::string_view> kept,
                         absl::string_view policy) const;
};

// DATA_LOSS unless `row` of `table` has `values` integers and, as `with_job` says, a job.
absl::Status CheckRowShape(const PolicyImage::Row& row, absl::string_view table, std::size_t values,
                           bool with_job);

}  // namespace resched
