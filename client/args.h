// Command-line flags of one subcommand: --name VALUE, --name=VALUE, -x VALUE, boolean
// --name, and positional arguments; "--" ends the flags.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace resched::cli {

struct FlagSpec {
  absl::string_view name;   // without dashes, e.g. "cluster"
  char short_name = 0;      // e.g. 'f' for -f; 0 for none
  bool takes_value = true;  // false: a boolean flag
  bool repeatable = false;
};

class ParsedArgs {
 public:
  bool Has(absl::string_view name) const { return values_.count(std::string(name)) > 0; }
  // The value of a flag given once; nullopt when absent.
  std::optional<std::string> Get(absl::string_view name) const;
  std::string GetOr(absl::string_view name, absl::string_view fallback) const;
  // All values of a repeatable flag, in order (empty when absent).
  const std::vector<std::string>& All(absl::string_view name) const;
  const std::vector<std::string>& positional() const { return positional_; }

  void Add(absl::string_view name, std::string value) {
    values_[std::string(name)].push_back(std::move(value));
  }
  void AddPositional(std::string value) { positional_.push_back(std::move(value)); }

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  std::vector<std::string> positional_;
};

// Errors (unknown flag, missing value, a flag given twice) are INVALID_ARGUMENT with a
// message meant for the user.
absl::StatusOr<ParsedArgs> ParseArgs(absl::Span<const std::string> args,
                                     absl::Span<const FlagSpec> spec);

}  // namespace resched::cli
