#include "server/process/server_options.h"

#include <getopt.h>

#include <filesystem>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace resched::server {

const char kServerUsage[] =
    "usage: resched-server [--listen HOST:PORT] [--config FILE]\n"
    "           [--data-dir DIR | --ephemeral | --store etcd --etcd-endpoints URL[,URL...]]\n"
    "  --listen   address to serve on (default: the config's, else 127.0.0.1:50051);\n"
    "             without TLS and bearer tokens only a loopback address, unless\n"
    "             --insecure\n"
    "  --tls-cert FILE, --tls-key FILE  serve TLS with this certificate chain and\n"
    "             private key (PEM)\n"
    "  --tls-client-ca FILE  mutual TLS: clients need a certificate this CA signed\n"
    "  --peer-tls-ca FILE  with --store etcd and TLS: the CA the other replicas'\n"
    "             certificates chain to, for the calls forwarded to them (default:\n"
    "             --tls-client-ca, else the system's roots)\n"
    "  --tokens-file FILE  every call needs a bearer token of this file, whose role\n"
    "             and clusters allow it (YAML; tokens as SHA-256; docs/security.md)\n"
    "             The TLS files and the tokens file are read again on SIGHUP and\n"
    "             when they change; a file that does not load is refused and the\n"
    "             one in use stays\n"
    "  --insecure  serve a non-loopback address without TLS and tokens (warned)\n"
    "  --audit-log FILE|-|none  a JSON line for every call that may change state,\n"
    "             applied or refused (default: the config's audit_log, else\n"
    "             audit.jsonl in the data directory; none when --ephemeral;\n"
    "             - with --store etcd)\n"
    "  --config   YAML or JSON configuration (default: embedded; see --print-config)\n"
    "  --data-dir where every acknowledged change is kept (default: the config's,\n"
    "             else .resched-data); a restart comes back to the same state\n"
    "  --ephemeral  keep nothing on disk (tests, experiments)\n"
    "  --store local|etcd  where the journal is kept: the data directory (local,\n"
    "             the default: the config's store, else local) or etcd, so that\n"
    "             replicas sharing it take over from each other (docs/ha.md);\n"
    "             TLS and authentication to etcd are set in the config's etcd\n"
    "  --etcd-endpoints URL[,URL...]  the etcd members' client URLs (default: the\n"
    "             config's etcd.endpoints)\n"
    "  --etcd-prefix /P  the keys resched writes in etcd (default: the config's\n"
    "             etcd.prefix, else /resched)\n"
    "  --advertise-address HOST:PORT  where the other replicas forward calls to this\n"
    "             one (default: the listen address, a wildcard host replaced by\n"
    "             this machine's name)\n"
    "  --accept-data-loss  start even when acknowledged changes cannot be read (the\n"
    "             write-ahead log damaged before its last commit, or missing after a\n"
    "             crash); the log says what was lost. Without it such a start fails\n"
    "             with DATA_LOSS naming the file and the position\n"
    "  --metrics-listen HOST:PORT  serve Prometheus metrics at /metrics there\n"
    "             (default: the config's metrics_listen, else none); plain HTTP\n"
    "             without authentication, so a non-loopback address needs\n"
    "             --metrics-insecure or --insecure\n"
    "  --metrics-insecure  serve --metrics-listen on a non-loopback address: let\n"
    "             only the scraper reach it (a NetworkPolicy, a firewall)\n"
    "  --http-listen HOST:PORT  serve the web view (a page, its JSON API under\n"
    "             /api/v1 and /metrics) there (default: the config's http_listen,\n"
    "             else none); plain HTTP, so a non-loopback address needs --insecure\n"
    "  --http-allowed-hosts NAME[,NAME...]  host names the web view answers to besides\n"
    "             IP addresses and localhost (a proxy's name in front of it); a\n"
    "             request for another name, or from another site's page, gets 403\n"
    "  --log-format text|json  one line per event on stderr, as text (default) or\n"
    "             JSON objects (default: the config's log_format)\n"
    "  --otlp-endpoint URL  send trace spans there as OTLP/HTTP JSON (a collector's\n"
    "             base URL, e.g. http://localhost:4318; default: the config's\n"
    "             otlp_endpoint, else OTEL_EXPORTER_OTLP_ENDPOINT, else none)\n"
    "  --trace-sample-ratio R  share of calls traced when the caller did not decide\n"
    "             (default: OTEL_TRACES_SAMPLER_ARG, else the config's, else 1)\n"
    "  --print-config  print the embedded default configuration and exit\n";

namespace {

// What --audit-log calls standard error.
constexpr char kStandardError[] = "-";

// `flag` when given, else `configured`, else `fallback`.
std::string FirstSet(const std::string& flag, const std::string& configured,
                     const std::string& fallback = "") {
  if (!flag.empty()) return flag;
  return configured.empty() ? fallback : configured;
}

// One flag and the field it sets: a value, a switch of ServerFlags, or an action of CommandLine.
struct FlagSpec {
  const char* name;
  std::string ServerFlags::*value = nullptr;
  bool ServerFlags::*on = nullptr;
  bool CommandLine::*action = nullptr;
};

constexpr FlagSpec kFlagSpecs[] = {
    {"help", nullptr, nullptr, &CommandLine::help},
    {"print-config", nullptr, nullptr, &CommandLine::print_config},
    {"listen", &ServerFlags::listen},
    {"config", &ServerFlags::config},
    {"data-dir", &ServerFlags::data_dir},
    {"ephemeral", nullptr, &ServerFlags::ephemeral},
    {"accept-data-loss", nullptr, &ServerFlags::accept_data_loss},
    {"store", &ServerFlags::store},
    {"etcd-endpoints", &ServerFlags::etcd_endpoints},
    {"etcd-prefix", &ServerFlags::etcd_prefix},
    {"advertise-address", &ServerFlags::advertise_address},
    {"tls-cert", &ServerFlags::tls_cert},
    {"tls-key", &ServerFlags::tls_key},
    {"tls-client-ca", &ServerFlags::tls_client_ca},
    {"peer-tls-ca", &ServerFlags::peer_tls_ca},
    {"tokens-file", &ServerFlags::tokens_file},
    {"insecure", nullptr, &ServerFlags::insecure},
    {"audit-log", &ServerFlags::audit_log},
    {"metrics-listen", &ServerFlags::metrics_listen},
    {"metrics-insecure", nullptr, &ServerFlags::metrics_insecure},
    {"http-listen", &ServerFlags::http_listen},
    {"http-allowed-hosts", &ServerFlags::http_allowed_hosts},
    {"log-format", &ServerFlags::log_format},
    {"otlp-endpoint", &ServerFlags::otlp_endpoint},
    {"trace-sample-ratio", &ServerFlags::trace_sample_ratio},
};

// getopt_long answers a flag by its index here, offset past the short flags' characters.
constexpr int kFirstLongId = 256;

}  // namespace

absl::StatusOr<CommandLine> ParseCommandLine(int argc, char** argv) {
  std::vector<option> options;
  for (const FlagSpec& spec : kFlagSpecs) {
    options.push_back({spec.name, spec.value != nullptr ? required_argument : no_argument, nullptr,
                       kFirstLongId + static_cast<int>(options.size())});
  }
  options.push_back({nullptr, 0, nullptr, 0});
  CommandLine out;
  // getopt_long keeps its place in globals: 0 starts afresh (a test parses several command
  // lines); errors are reported here, not printed by getopt.
  optind = 0;
  opterr = 0;
  // "+": stop at the first argument that is not a flag (no reordering); ":": a missing value is
  // told apart from an unknown flag; -h is --help.
  constexpr char kShortFlags[] = "+:h";
  int id = 0;
  while ((id = getopt_long(argc, argv, kShortFlags, options.data(), nullptr)) != -1) {
    const char* given = argv[optind - 1];
    if (id == '?') {
      const std::string name(
          absl::string_view(given).substr(0, absl::string_view(given).find('=')));
      for (const FlagSpec& spec : kFlagSpecs) {
        if (spec.value == nullptr && name == absl::StrCat("--", spec.name)) {
          return absl::InvalidArgumentError(absl::StrCat(name, " takes no value"));
        }
      }
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", given, "' (see --help)"));
    }
    if (id == ':') {
      return absl::InvalidArgumentError(absl::StrCat(given, " needs a value"));
    }
    if (id == 'h') {
      out.help = true;
      continue;
    }
    const FlagSpec& spec = kFlagSpecs[id - kFirstLongId];
    if (spec.value != nullptr) {
      out.flags.*spec.value = optarg;
    } else if (spec.on != nullptr) {
      out.flags.*spec.on = true;
    } else {
      out.*spec.action = true;
    }
  }
  if (optind < argc) {
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", argv[optind], "' (see --help)"));
  }
  return out;
}

absl::StatusOr<ServerOptions> ResolveServerOptions(
    const ServerFlags& flags, ::resched::v1::ServerConfig config,
    const std::function<std::string(const char*)>& env) {
  ServerOptions out;
  if (flags.ephemeral && !flags.data_dir.empty()) {
    return absl::InvalidArgumentError("--data-dir and --ephemeral exclude each other");
  }
  out.listen = FirstSet(flags.listen, config.listen(), kDefaultListen);
  absl::StatusOr<StoreSettings> store = ResolveStore({.store = flags.store,
                                                      .etcd_endpoints = flags.etcd_endpoints,
                                                      .etcd_prefix = flags.etcd_prefix,
                                                      .advertise_address = flags.advertise_address},
                                                     config);
  if (!store.ok()) return store.status();
  out.store = *std::move(store);
  if (out.store.etcd) {
    // A replica on etcd keeps nothing on its own disk; the config's data_dir does not apply.
    for (const auto& [given, flag] : {std::pair{!flags.data_dir.empty(), "--data-dir"},
                                      std::pair{flags.ephemeral, "--ephemeral"},
                                      std::pair{flags.accept_data_loss, "--accept-data-loss"}}) {
      if (given) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag, " applies to the local store, not to --store etcd"));
      }
    }
  }
  out.ephemeral = flags.ephemeral;
  if (!out.ephemeral && !out.store.etcd) {
    out.data_dir = FirstSet(flags.data_dir, config.data_dir(), kDefaultDataDir);
  }
  out.accept_data_loss = flags.accept_data_loss;
  out.tls = {.cert = flags.tls_cert, .key = flags.tls_key, .client_ca = flags.tls_client_ca};
  if (!flags.peer_tls_ca.empty() && (!out.store.etcd || !out.tls.enabled())) {
    return absl::InvalidArgumentError(
        "--peer-tls-ca applies to replicas that serve TLS on etcd (--store etcd and --tls-cert)");
  }
  out.peer_tls_ca = flags.peer_tls_ca;
  out.tokens_file = flags.tokens_file;
  out.insecure = flags.insecure;

  // The audit log: the flag, the file's, else beside the journal; "none" turns it off.
  out.audit_log = FirstSet(flags.audit_log, config.audit_log());
  if (out.audit_log.empty() && !out.ephemeral) {
    // With etcd there is no local disk: standard error, the container's log.
    out.audit_log = out.store.etcd ? std::string(kStandardError)
                                   : (std::filesystem::path(out.data_dir) / "audit.jsonl").string();
  }
  if (out.audit_log == "none") out.audit_log.clear();

  out.metrics_listen = FirstSet(flags.metrics_listen, config.metrics_listen());
  out.metrics_insecure = flags.metrics_insecure;
  out.http_listen = FirstSet(flags.http_listen, config.http_listen());
  out.http_allowed_hosts = absl::StrSplit(flags.http_allowed_hosts, ',', absl::SkipEmpty());

  const std::string log_format = FirstSet(flags.log_format, config.log_format(), "text");
  if (log_format != "text" && log_format != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("--log-format must be text or json, got '", log_format, "'"));
  }
  out.log_format = log_format == "json" ? LogFormat::kJson : LogFormat::kText;

  TracingFlags tracing_flags;
  tracing_flags.otlp_endpoint = flags.otlp_endpoint;
  if (!flags.trace_sample_ratio.empty()) {
    double ratio = 0;
    if (!absl::SimpleAtod(flags.trace_sample_ratio, &ratio)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--trace-sample-ratio must be a number in [0, 1], got '", flags.trace_sample_ratio, "'"));
    }
    tracing_flags.trace_sample_ratio = ratio;
  }
  absl::StatusOr<TracingSettings> tracing = ResolveTracing(tracing_flags, config, env);
  if (!tracing.ok()) return tracing.status();
  out.tracing = *std::move(tracing);

  if (config.max_message_bytes() > 0) out.max_message_bytes = config.max_message_bytes();
  out.config = std::move(config);
  return out;
}

}  // namespace resched::server
