#include "client/args.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace resched::cli {

std::optional<std::string> ParsedArgs::Get(absl::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::string ParsedArgs::GetOr(absl::string_view name, absl::string_view fallback) const {
  std::optional<std::string> v = Get(name);
  return v ? *v : std::string(fallback);
}

const std::vector<std::string>& ParsedArgs::All(absl::string_view name) const {
  static const std::vector<std::string> kEmpty;
  auto it = values_.find(name);
  return it == values_.end() ? kEmpty : it->second;
}

absl::StatusOr<ParsedArgs> ParseArgs(absl::Span<const std::string> args,
                                     absl::Span<const FlagSpec> spec) {
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      for (++i; i < args.size(); ++i) parsed.AddPositional(args[i]);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-' || absl::ascii_isdigit(arg[1])) {
      parsed.AddPositional(arg);
      continue;
    }
    absl::string_view name = arg;
    std::optional<std::string> value;
    const FlagSpec* flag = nullptr;
    if (absl::StartsWith(name, "--")) {
      name.remove_prefix(2);
      if (size_t eq = name.find('='); eq != absl::string_view::npos) {
        value = std::string(name.substr(eq + 1));
        name = name.substr(0, eq);
      }
      for (const FlagSpec& f : spec) {
        if (f.name == name) flag = &f;
      }
    } else if (arg.size() == 2) {
      for (const FlagSpec& f : spec) {
        if (f.short_name != 0 && f.short_name == arg[1]) flag = &f;
      }
    }
    if (flag == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown flag ", arg));
    std::string display = absl::StrCat("--", flag->name);
    if (!flag->takes_value) {
      if (value) return absl::InvalidArgumentError(absl::StrCat(display, " takes no value"));
      value = "true";
    } else if (!value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat(display, " needs a value"));
      }
      value = args[++i];
    }
    if (!flag->repeatable && parsed.Has(flag->name)) {
      return absl::InvalidArgumentError(absl::StrCat(display, " given more than once"));
    }
    parsed.Add(flag->name, *std::move(value));
  }
  return parsed;
}

}  // namespace resched::cli
