#include "core/online/policy_image.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace resched {

void PolicyImage::Put(const std::string& name, Table rows) {
  std::sort(rows.begin(), rows.end());
  tables[name] = std::move(rows);
}

const PolicyImage::Table* PolicyImage::Find(const std::string& name) const {
  auto it = tables.find(name);
  return it == tables.end() ? nullptr : &it->second;
}

absl::Status PolicyImage::KeepsOnly(std::initializer_list<absl::string_view> kept,
                                    absl::string_view policy) const {
  for (const auto& [name, rows] : tables) {
    if (std::find(kept.begin(), kept.end(), name) == kept.end()) {
      return absl::DataLossError(absl::StrCat("the policy image holds the table '", name,
                                              "', which ", policy, " does not keep"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRowShape(const PolicyImage::Row& row, absl::string_view table, std::size_t values,
                           bool with_job) {
  if (row.values.size() != values || row.job.empty() == with_job) {
    return absl::DataLossError(
        absl::StrCat("a row of the policy image's table '", table, "' has ", row.values.size(),
                     " values and ", row.job.empty() ? "no job" : "a job",
                     "; the table's rows have ", values, " and ", with_job ? "a job" : "none"));
  }
  return absl::OkStatus();
}

}  // namespace resched
