#include "client/cli.h"

#include <array>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/commands.h"
#include "client/rpc_error.h"
#include "transport/bearer_token.h"

namespace resched::cli {
namespace {

constexpr std::array<FlagSpec, 8> kGlobalFlags = {{{"server"},
                                                   {"json", 0, false},
                                                   {"timeout"},
                                                   {"tls-ca"},
                                                   {"tls-cert"},
                                                   {"tls-key"},
                                                   {"token-file"},
                                                   {"help", 'h', false}}};

constexpr absl::string_view kGlobalHelp = R"(global flags (before or after the command):
  --server HOST:PORT   the server (default: $RESCHED_SERVER, else 127.0.0.1:50051);
                       several, HOST:PORT,HOST:PORT...: replicas on etcd, of which the
                       one that serves answers, and a call waits (up to --timeout)
                       while one takes over from another
  --json               print the answer as JSON (proto field names) instead of tables
  --timeout DURATION   deadline of each call (default 30s)
  --tls-ca FILE        TLS: verify the server against this CA (PEM; any TLS flag turns TLS
                       on, and without this one the system's roots are used; default:
                       $RESCHED_TLS_CA)
  --tls-cert FILE, --tls-key FILE  mutual TLS: this client's certificate and key (PEM;
                       default: $RESCHED_TLS_CERT, $RESCHED_TLS_KEY)
  --token-file FILE    the bearer token to call with, read from FILE (default:
                       $RESCHED_TOKEN); a server with a tokens file needs one
  -h, --help           help on a command

durations: 90s, 5m, 1h30m, 1.5h, 250ms, 100us; a plain number is seconds.
times: RFC 3339 (2026-11-22T10:00:00Z), @SECONDS or @DURATION since the epoch (simulated
clusters start there), +DURATION after the cluster's now, now.
files (-f): JSON or YAML of the message, with protobuf's JSON mapping (durations as "90s").
)";

// The variable's value; empty when it is not set.
std::string Environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

const Command* Find(absl::string_view resource, absl::string_view verb) {
  for (const Command& c : AllCommands()) {
    if (c.resource == resource && c.verb == verb) return &c;
  }
  return nullptr;
}

bool HasResource(absl::string_view resource) {
  for (const Command& c : AllCommands()) {
    if (c.resource == resource) return true;
  }
  return false;
}

std::string ResourceUsage(absl::string_view resource) {
  std::string out;
  for (const Command& c : AllCommands()) {
    if (c.resource == resource) absl::StrAppend(&out, c.usage, "\n");
  }
  return out + std::string(kGlobalHelp);
}

std::string FirstLine(absl::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

}  // namespace

std::string Overview() {
  std::string out =
      "resched: when, and on how many processors, parallel jobs run on a cluster.\n\n"
      "usage: resched [global flags] <resource> <verb> [flags]\n\ncommands:\n";
  for (const Command& c : AllCommands()) {
    std::string line = FirstLine(c.usage);
    if (absl::StartsWith(line, "usage: ")) line = line.substr(7);
    absl::StrAppend(&out, "  ", line, "\n");
  }
  absl::StrAppend(&out, "\n'resched <resource> --help' explains a command.\n\n", kGlobalHelp);
  return out;
}

int RunCli(const std::vector<std::string>& args, const ChannelFactory& open_channel,
           const std::string& default_server, std::ostream& out, std::ostream& err) {
  // Global flags up to the resource name.
  size_t i = 0;
  std::vector<std::string> prefix;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!absl::StartsWith(a, "-") || a == "-") break;
    prefix.push_back(a);
    bool takes_value = (a == "--server" || a == "--timeout" || a == "--tls-ca" ||
                        a == "--tls-cert" || a == "--tls-key" || a == "--token-file");
    if (takes_value && i + 1 < args.size()) prefix.push_back(args[++i]);
  }
  absl::StatusOr<ParsedArgs> head = ParseArgs(prefix, kGlobalFlags);
  if (!head.ok()) {
    err << "error: " << head.status().message() << "\n\n" << Overview();
    return 2;
  }
  if (i >= args.size() || args[i] == "help") {
    if (i + 1 < args.size() && HasResource(args[i + 1])) {
      out << ResourceUsage(args[i + 1]);
      return 0;
    }
    if (i >= args.size() && !head->Has("help")) {
      err << Overview();
      return 2;
    }
    out << Overview();
    return 0;
  }
  const std::string& resource = args[i++];
  if (!HasResource(resource)) {
    err << "error: unknown command \"" << resource << "\"\n\n" << Overview();
    return 2;
  }
  const Command* command = nullptr;
  if (i < args.size() && !absl::StartsWith(args[i], "-")) command = Find(resource, args[i]);
  if (command != nullptr) {
    ++i;
  } else {
    command = Find(resource, "");
  }
  if (command == nullptr) {
    if (i < args.size() && (args[i] == "--help" || args[i] == "-h" || args[i] == "help")) {
      out << ResourceUsage(resource);
      return 0;
    }
    if (i < args.size() && !absl::StartsWith(args[i], "-")) {
      err << "error: unknown command \"" << resource << " " << args[i] << "\"\n\n";
    } else {
      err << "error: \"" << resource << "\" needs a verb\n\n";
    }
    err << ResourceUsage(resource);
    return 2;
  }

  std::vector<FlagSpec> spec(command->flags);
  spec.insert(spec.end(), kGlobalFlags.begin(), kGlobalFlags.end());
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(absl::MakeConstSpan(args).subspan(i), spec);
  auto usage_error = [&](absl::string_view message) {
    err << "error: " << message << "\n\n" << command->usage;
    return 2;
  };
  if (!parsed.ok()) return usage_error(parsed.status().message());
  if (parsed->Has("help") || head->Has("help")) {
    out << command->usage << "\n" << kGlobalHelp;
    return 0;
  }
  size_t n = parsed->positional().size();
  if (n < command->min_args || n > command->max_args) {
    return usage_error(n < command->min_args
                           ? "missing arguments"
                           : absl::StrCat("unexpected argument \"",
                                          parsed->positional()[command->max_args], "\""));
  }

  auto global = [&](absl::string_view flag, const std::string& otherwise) {
    return parsed->GetOr(flag, head->GetOr(flag, otherwise));
  };
  Connection connection;
  connection.server = global("server", default_server);
  // From the environment too, so that a container's health check, which runs the bare command,
  // reaches a server that serves TLS.
  connection.tls = {global("tls-ca", Environment("RESCHED_TLS_CA")),
                    global("tls-cert", Environment("RESCHED_TLS_CERT")),
                    global("tls-key", Environment("RESCHED_TLS_KEY"))};
  if (const std::string token_file = global("token-file", ""); !token_file.empty()) {
    absl::StatusOr<std::string> token = transport::ReadTokenFile("--token-file", token_file);
    if (!token.ok()) {
      err << "error: " << token.status().message() << "\n";
      return 1;
    }
    connection.token = *std::move(token);
  } else {
    absl::StatusOr<std::string> token = transport::TokenFromEnvironment();
    if (!token.ok()) {
      err << "error: " << token.status().message() << "\n";
      return 1;
    }
    connection.token = *std::move(token);
  }
  const std::string& server = connection.server;
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = open_channel(connection);
  if (!channel.ok()) {
    err << "error: " << channel.status().message() << "\n";
    return 1;
  }
  std::unique_ptr<resched::v1::Resched::StubInterface> stub =
      resched::v1::Resched::NewStub(*channel);
  Context ctx(stub.get(), out, err);
  ctx.channel = *channel;
  ctx.server = server;
  ctx.json = parsed->Has("json") || head->Has("json");
  try {
    if (std::optional<std::string> t =
            parsed->Get("timeout") ? parsed->Get("timeout") : head->Get("timeout")) {
      ctx.timeout_micros = Context::ParseDurationFlag("timeout", *t);
      if (ctx.timeout_micros <= 0) throw UsageError("--timeout must be positive");
    }
    return command->run(ctx, *parsed);
  } catch (const UsageError& e) {
    return usage_error(e.what());
  } catch (const CliError& e) {
    err << "error: " << e.what() << "\n";
    return 1;
  } catch (const RpcError& e) {
    err << FormatRpcError(e.status(), server);
    return 1;
  }
}

}  // namespace resched::cli
