#include "server/server_options.h"

#include <getopt.h>

#include <filesystem>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace resched::server {

const char kServerUsage[] =
    "usage: resched-server [--listen HOST:PORT] [--config FILE] [--data-dir DIR | --ephemeral]\n"
    "  --listen   address to serve on (default: the config's, else 127.0.0.1:50051);\n"
    "             without TLS and bearer tokens only a loopback address, unless\n"
    "             --insecure\n"
    "  --tls-cert FILE, --tls-key FILE  serve TLS with this certificate chain and\n"
    "             private key (PEM)\n"
    "  --tls-client-ca FILE  mutual TLS: clients need a certificate this CA signed\n"
    "  --tokens-file FILE  every call needs a bearer token of this file, whose role\n"
    "             and clusters allow it (YAML; tokens as SHA-256; docs/security.md)\n"
    "             The TLS files and the tokens file are read again on SIGHUP and\n"
    "             when they change; a file that does not load is refused and the\n"
    "             one in use stays\n"
    "  --insecure  serve a non-loopback address without TLS and tokens (warned)\n"
    "  --audit-log FILE|-|none  a JSON line for every call that may change state,\n"
    "             applied or refused (default: the config's audit_log, else\n"
    "             audit.jsonl in the data directory; none when --ephemeral)\n"
    "  --config   YAML or JSON configuration (default: embedded; see --print-config)\n"
    "  --data-dir where every acknowledged change is kept (default: the config's,\n"
    "             else .resched-data); a restart comes back to the same state\n"
    "  --ephemeral  keep nothing on disk (tests, experiments)\n"
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

// `flag` when given, else `configured`, else `fallback`.
std::string FirstSet(const std::string& flag, const std::string& configured,
                     const std::string& fallback = "") {
  if (!flag.empty()) return flag;
  return configured.empty() ? fallback : configured;
}

enum FlagId : int {
  kHelp = 'h',
  kListen = 256,
  kConfig,
  kDataDir,
  kEphemeral,
  kAcceptDataLoss,
  kTlsCert,
  kTlsKey,
  kTlsClientCa,
  kTokensFile,
  kInsecure,
  kAuditLog,
  kMetricsListen,
  kMetricsInsecure,
  kHttpListen,
  kHttpAllowedHosts,
  kLogFormat,
  kOtlpEndpoint,
  kTraceSampleRatio,
  kPrintConfig,
};

constexpr option kFlags[] = {
    {"help", no_argument, nullptr, kHelp},
    {"listen", required_argument, nullptr, kListen},
    {"config", required_argument, nullptr, kConfig},
    {"data-dir", required_argument, nullptr, kDataDir},
    {"ephemeral", no_argument, nullptr, kEphemeral},
    {"accept-data-loss", no_argument, nullptr, kAcceptDataLoss},
    {"tls-cert", required_argument, nullptr, kTlsCert},
    {"tls-key", required_argument, nullptr, kTlsKey},
    {"tls-client-ca", required_argument, nullptr, kTlsClientCa},
    {"tokens-file", required_argument, nullptr, kTokensFile},
    {"insecure", no_argument, nullptr, kInsecure},
    {"audit-log", required_argument, nullptr, kAuditLog},
    {"metrics-listen", required_argument, nullptr, kMetricsListen},
    {"metrics-insecure", no_argument, nullptr, kMetricsInsecure},
    {"http-listen", required_argument, nullptr, kHttpListen},
    {"http-allowed-hosts", required_argument, nullptr, kHttpAllowedHosts},
    {"log-format", required_argument, nullptr, kLogFormat},
    {"otlp-endpoint", required_argument, nullptr, kOtlpEndpoint},
    {"trace-sample-ratio", required_argument, nullptr, kTraceSampleRatio},
    {"print-config", no_argument, nullptr, kPrintConfig},
    {nullptr, 0, nullptr, 0},
};

// The string field of `flags` that `id` sets, or null for a switch.
std::string* ValueOf(ServerFlags& flags, int id) {
  switch (id) {
    case kListen:
      return &flags.listen;
    case kConfig:
      return &flags.config;
    case kDataDir:
      return &flags.data_dir;
    case kTlsCert:
      return &flags.tls_cert;
    case kTlsKey:
      return &flags.tls_key;
    case kTlsClientCa:
      return &flags.tls_client_ca;
    case kTokensFile:
      return &flags.tokens_file;
    case kAuditLog:
      return &flags.audit_log;
    case kMetricsListen:
      return &flags.metrics_listen;
    case kHttpListen:
      return &flags.http_listen;
    case kHttpAllowedHosts:
      return &flags.http_allowed_hosts;
    case kLogFormat:
      return &flags.log_format;
    case kOtlpEndpoint:
      return &flags.otlp_endpoint;
    case kTraceSampleRatio:
      return &flags.trace_sample_ratio;
    default:
      return nullptr;
  }
}

}  // namespace

absl::StatusOr<CommandLine> ParseCommandLine(int argc, char** argv) {
  CommandLine out;
  // getopt_long keeps its place in globals: 0 starts afresh (a test parses several command
  // lines); errors are reported here, not printed by getopt.
  optind = 0;
  opterr = 0;
  // "+": stop at the first argument that is not a flag (no reordering); ":": a missing value is
  // told apart from an unknown flag.
  constexpr char kShortFlags[] = "+:h";
  int id = 0;
  while ((id = getopt_long(argc, argv, kShortFlags, kFlags, nullptr)) != -1) {
    const char* given = argv[optind - 1];
    if (id == '?') {
      const std::string name(
          absl::string_view(given).substr(0, absl::string_view(given).find('=')));
      for (const option* known = kFlags; known->name != nullptr; ++known) {
        if (known->has_arg == no_argument && name == absl::StrCat("--", known->name)) {
          return absl::InvalidArgumentError(absl::StrCat(name, " takes no value"));
        }
      }
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", given, "' (see --help)"));
    }
    if (id == ':') {
      return absl::InvalidArgumentError(absl::StrCat(given, " needs a value"));
    }
    if (std::string* value = ValueOf(out.flags, id)) {
      *value = optarg;
      continue;
    }
    switch (id) {
      case kHelp:
        out.help = true;
        break;
      case kEphemeral:
        out.flags.ephemeral = true;
        break;
      case kAcceptDataLoss:
        out.flags.accept_data_loss = true;
        break;
      case kInsecure:
        out.flags.insecure = true;
        break;
      case kMetricsInsecure:
        out.flags.metrics_insecure = true;
        break;
      case kPrintConfig:
        out.print_config = true;
        break;
      default:
        break;
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
  out.ephemeral = flags.ephemeral;
  if (!out.ephemeral) out.data_dir = FirstSet(flags.data_dir, config.data_dir(), kDefaultDataDir);
  out.accept_data_loss = flags.accept_data_loss;
  out.tls = {.cert = flags.tls_cert, .key = flags.tls_key, .client_ca = flags.tls_client_ca};
  out.tokens_file = flags.tokens_file;
  out.insecure = flags.insecure;

  // The audit log: the flag, the file's, else beside the journal; "none" turns it off.
  out.audit_log = FirstSet(flags.audit_log, config.audit_log());
  if (out.audit_log.empty() && !out.ephemeral) {
    out.audit_log = (std::filesystem::path(out.data_dir) / "audit.jsonl").string();
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
