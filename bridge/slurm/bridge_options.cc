#include "bridge/slurm/bridge_options.h"

#include <cstdlib>
#include <functional>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace resched::bridge::slurm {
namespace {

absl::Status SetDuration(const std::string& flag, const std::string& text, absl::Duration& out,
                         absl::Duration at_least) {
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || d < at_least) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " takes a duration of at least ",
                                                   absl::FormatDuration(at_least),
                                                   " such as 1s or 24h, got '", text, "'"));
  }
  out = d;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BridgeOptions> ParseBridgeOptions(const std::vector<std::string>& args) {
  BridgeOptions o;
  if (const char* server = std::getenv("RESCHED_SERVER"); server != nullptr && *server != '\0') {
    o.server = server;
  }
  if (const char* token = std::getenv("SLURM_JWT"); token != nullptr) o.slurm.rest.token = token;
  std::string name_prefix, tenant_accounts;
  absl::Duration horizon = absl::Hours(24), open_hold = absl::Hours(168),
                 tolerance = absl::Seconds(60);
  using Setter = std::function<absl::Status(const std::string&, const std::string&)>;
  auto text = [](std::string& out) -> Setter {
    return [&out](const std::string&, const std::string& v) {
      out = v;
      return absl::OkStatus();
    };
  };
  const std::map<std::string, Setter> with_value = {
      {"--slurmrestd", text(o.slurm.rest.address)},
      {"--slurm-user", text(o.slurm.rest.user)},
      {"--partition", text(o.slurm.partition)},
      {"--scontrol", text(o.slurm.scontrol)},
      {"--server", text(o.server)},
      {"--cluster", text(o.cluster)},
      {"--tls-ca", text(o.tls.ca)},
      {"--tls-cert", text(o.tls.cert)},
      {"--tls-key", text(o.tls.key)},
      {"--token-file", text(o.token_file)},
      {"--users", text(o.sync.users)},
      {"--accounts", text(o.sync.accounts)},
      {"--name-prefix", text(name_prefix)},
      {"--tenant-accounts", text(tenant_accounts)},
      {"--log-format", text(o.log_format)},
      {"--interval",
       [&](const std::string& f, const std::string& v) {
         return SetDuration(f, v, o.interval, absl::Milliseconds(100));
       }},
      {"--horizon",
       [&](const std::string& f, const std::string& v) {
         return SetDuration(f, v, horizon, absl::Minutes(1));
       }},
      {"--open-hold",
       [&](const std::string& f, const std::string& v) {
         return SetDuration(f, v, open_hold, absl::Minutes(10));
       }},
      {"--tolerance",
       [&](const std::string& f, const std::string& v) {
         return SetDuration(f, v, tolerance, absl::ZeroDuration());
       }},
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    bool has_value = false;
    if (auto eq = flag.find('='); absl::StartsWith(flag, "--") && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      return o;
    }
    if (flag == "--once") {
      o.once = true;
      continue;
    }
    auto it = with_value.find(flag);
    if (it == with_value.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown argument '", args[i], "' (--help lists the flags)"));
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
      }
      value = args[++i];
    }
    if (auto status = it->second(flag, value); !status.ok()) return status;
  }
  if (o.slurm.rest.address.empty()) {
    return absl::InvalidArgumentError("--slurmrestd is required (unix:/path or http://host:port)");
  }
  if (!o.slurm.rest.token.empty() && o.slurm.rest.user.empty()) {
    return absl::InvalidArgumentError("--slurm-user names the user $SLURM_JWT belongs to");
  }
  if (o.sync.users.empty() && o.sync.accounts.empty()) {
    return absl::InvalidArgumentError(
        "--users or --accounts: Slurm makes no reservation that nobody may use");
  }
  if (o.log_format != "text" && o.log_format != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("--log-format takes text or json, got '", o.log_format, "'"));
  }
  for (absl::string_view pair : absl::StrSplit(tenant_accounts, ',', absl::SkipEmpty())) {
    const std::vector<std::string> parts = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--tenant-accounts takes TENANT=ACCOUNT pairs separated by commas, got '", pair, "'"));
    }
    o.sync.tenant_accounts[parts[0]] = parts[1];
  }
  if (o.cluster.empty()) o.cluster = o.slurm.partition;
  o.sync.name_prefix = name_prefix.empty() ? absl::StrCat("resched-", o.cluster) : name_prefix;
  o.sync.hold_source = "slurm";
  o.sync.horizon = absl::ToInt64Microseconds(horizon);
  o.sync.open_hold_length = absl::ToInt64Microseconds(open_hold);
  o.sync.tolerance = absl::ToInt64Microseconds(tolerance);
  return o;
}

}  // namespace resched::bridge::slurm
