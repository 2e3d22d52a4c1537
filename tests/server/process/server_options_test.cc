// ResolveServerOptions: a flag wins over the configuration file, the file over the built-in
// default; flags that exclude each other and bad values are refused naming the flag.
#include "server/process/server_options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/process/config.h"
#include "tests/testing/status.h"

namespace resched::server {
namespace {

using ::resched::testing::StatusIs;

std::string NoEnvironment(const char*) { return ""; }

// Parses `args` as resched-server's command line.
absl::StatusOr<CommandLine> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "resched-server");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  return ParseCommandLine(static_cast<int>(args.size()), argv.data());
}

TEST(ServerCommandLine, TakesEveryFlagInBothFormsAndTheSwitches) {
  const CommandLine parsed = ::resched::testing::OkValue(Parse({"--listen",
                                                                "127.0.0.1:1",
                                                                "--data-dir=/d",
                                                                "--accept-data-loss",
                                                                "--insecure",
                                                                "--metrics-listen=127.0.0.1:2",
                                                                "--metrics-insecure",
                                                                "--http-listen",
                                                                "127.0.0.1:3",
                                                                "--http-allowed-hosts=a,b",
                                                                "--log-format",
                                                                "json",
                                                                "--otlp-endpoint=http://c",
                                                                "--trace-sample-ratio",
                                                                "0.5",
                                                                "--tls-cert",
                                                                "c.pem",
                                                                "--tls-key=k.pem",
                                                                "--tls-client-ca",
                                                                "ca.pem",
                                                                "--tokens-file",
                                                                "t.yaml",
                                                                "--audit-log=-",
                                                                "--config",
                                                                "f.yaml",
                                                                "--store",
                                                                "etcd",
                                                                "--etcd-endpoints=http://e:1",
                                                                "--etcd-prefix",
                                                                "/p"}));
  const ServerFlags& f = parsed.flags;
  EXPECT_EQ(f.listen, "127.0.0.1:1");
  EXPECT_EQ(f.data_dir, "/d");
  EXPECT_EQ(f.store, "etcd");
  EXPECT_EQ(f.etcd_endpoints, "http://e:1");
  EXPECT_EQ(f.etcd_prefix, "/p");
  EXPECT_TRUE(f.accept_data_loss);
  EXPECT_TRUE(f.insecure);
  EXPECT_EQ(f.metrics_listen, "127.0.0.1:2");
  EXPECT_TRUE(f.metrics_insecure);
  EXPECT_EQ(f.http_listen, "127.0.0.1:3");
  EXPECT_EQ(f.http_allowed_hosts, "a,b");
  EXPECT_EQ(f.log_format, "json");
  EXPECT_EQ(f.otlp_endpoint, "http://c");
  EXPECT_EQ(f.trace_sample_ratio, "0.5");
  EXPECT_EQ(f.tls_cert, "c.pem");
  EXPECT_EQ(f.tls_key, "k.pem");
  EXPECT_EQ(f.tls_client_ca, "ca.pem");
  EXPECT_EQ(f.tokens_file, "t.yaml");
  EXPECT_EQ(f.audit_log, "-");
  EXPECT_EQ(f.config, "f.yaml");
  EXPECT_FALSE(f.ephemeral);
  EXPECT_FALSE(parsed.help);
  EXPECT_FALSE(parsed.print_config);
  EXPECT_TRUE(::resched::testing::OkValue(Parse({"--ephemeral"})).flags.ephemeral);
  EXPECT_TRUE(::resched::testing::OkValue(Parse({"--help"})).help);
  EXPECT_TRUE(::resched::testing::OkValue(Parse({"-h"})).help);
  EXPECT_TRUE(::resched::testing::OkValue(Parse({"--print-config"})).print_config);
}

TEST(ServerCommandLine, RefusesWhatIsNotAFlagNamingIt) {
  EXPECT_THAT(Parse({"--frobnicate"}), StatusIs(absl::StatusCode::kInvalidArgument,
                                                "unknown flag '--frobnicate' (see --help)"));
  EXPECT_THAT(Parse({"--listen"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "--listen needs a value"));
  EXPECT_THAT(
      Parse({"--ephemeral", "extra"}),
      StatusIs(absl::StatusCode::kInvalidArgument, "unexpected argument 'extra' (see --help)"));
  EXPECT_THAT(Parse({"--insecure=yes"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "--insecure takes no value"));
  // Parsing again starts afresh.
  EXPECT_EQ(::resched::testing::OkValue(Parse({"--listen", "x:1"})).flags.listen, "x:1");
}

::resched::v1::ServerConfig Embedded() {
  return ::resched::testing::OkValue(ParseConfig(kDefaultConfigYaml));
}

TEST(ServerOptions, DefaultsWithoutFlagsOrFile) {
  ::resched::v1::ServerConfig empty;
  const ServerOptions options =
      ::resched::testing::OkValue(ResolveServerOptions({}, empty, NoEnvironment));
  EXPECT_EQ(options.listen, kDefaultListen);
  EXPECT_EQ(options.data_dir, kDefaultDataDir);
  EXPECT_FALSE(options.ephemeral);
  EXPECT_EQ(options.audit_log, std::string(kDefaultDataDir) + "/audit.jsonl");
  EXPECT_EQ(options.log_format, LogFormat::kText);
  EXPECT_EQ(options.max_message_bytes, kDefaultMaxMessageBytes);
  EXPECT_TRUE(options.metrics_listen.empty());
  EXPECT_TRUE(options.http_listen.empty());
  EXPECT_TRUE(options.tracing.traces_url.empty());
  EXPECT_FALSE(options.tls.enabled());
}

TEST(ServerOptions, AFlagWinsOverTheFileAndTheFileOverTheDefault) {
  ::resched::v1::ServerConfig config = Embedded();
  config.set_listen("0.0.0.0:7000");
  config.set_data_dir("/var/lib/resched");
  config.set_metrics_listen("127.0.0.1:9100");
  config.set_log_format("json");
  config.set_max_message_bytes(1 << 20);
  ServerFlags flags;
  flags.listen = "127.0.0.1:6000";
  flags.http_listen = "127.0.0.1:8080";
  flags.http_allowed_hosts = "resched.example,,other.example";
  const ServerOptions options =
      ::resched::testing::OkValue(ResolveServerOptions(flags, config, NoEnvironment));
  EXPECT_EQ(options.listen, "127.0.0.1:6000");
  EXPECT_EQ(options.data_dir, "/var/lib/resched");
  EXPECT_EQ(options.audit_log, "/var/lib/resched/audit.jsonl");
  EXPECT_EQ(options.metrics_listen, "127.0.0.1:9100");
  EXPECT_EQ(options.http_listen, "127.0.0.1:8080");
  EXPECT_EQ(options.http_allowed_hosts,
            (std::vector<std::string>{"resched.example", "other.example"}));
  EXPECT_EQ(options.log_format, LogFormat::kJson);
  EXPECT_EQ(options.max_message_bytes, 1 << 20);
  EXPECT_EQ(options.config.data_dir(), "/var/lib/resched");  // the file is kept whole
}

TEST(ServerOptions, EphemeralKeepsNoDirectoryAndNoAuditLogUnlessOneIsNamed) {
  ServerFlags flags;
  flags.ephemeral = true;
  ServerOptions options =
      ::resched::testing::OkValue(ResolveServerOptions(flags, Embedded(), NoEnvironment));
  EXPECT_TRUE(options.data_dir.empty());
  EXPECT_TRUE(options.audit_log.empty());
  flags.audit_log = "-";
  options = ::resched::testing::OkValue(ResolveServerOptions(flags, Embedded(), NoEnvironment));
  EXPECT_EQ(options.audit_log, "-");
  flags = {};
  flags.audit_log = "none";
  options = ::resched::testing::OkValue(ResolveServerOptions(flags, Embedded(), NoEnvironment));
  EXPECT_TRUE(options.audit_log.empty());
}

TEST(ServerOptions, BadValuesAreRefusedNamingTheFlag) {
  ServerFlags both;
  both.ephemeral = true;
  both.data_dir = "/tmp/x";
  EXPECT_THAT(ResolveServerOptions(both, Embedded(), NoEnvironment),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--data-dir and --ephemeral exclude each other"));
  ServerFlags format;
  format.log_format = "xml";
  EXPECT_THAT(
      ResolveServerOptions(format, Embedded(), NoEnvironment),
      StatusIs(absl::StatusCode::kInvalidArgument, "--log-format must be text or json, got 'xml'"));
  ServerFlags ratio;
  ratio.trace_sample_ratio = "half";
  EXPECT_THAT(ResolveServerOptions(ratio, Embedded(), NoEnvironment),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--trace-sample-ratio must be a number in [0, 1], got 'half'"));
  ratio.trace_sample_ratio = "2";
  EXPECT_THAT(ResolveServerOptions(ratio, Embedded(), NoEnvironment),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("[0, 1]")));
  ServerFlags peer;
  peer.peer_tls_ca = "ca.pem";
  EXPECT_THAT(ResolveServerOptions(peer, Embedded(), NoEnvironment),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("--peer-tls-ca applies to replicas that serve TLS")));
  peer.store = "etcd";
  peer.etcd_endpoints = "http://127.0.0.1:2379";
  peer.tls_cert = "cert.pem";
  peer.tls_key = "key.pem";
  ASSERT_TRUE(ResolveServerOptions(peer, Embedded(), NoEnvironment).ok());
  EXPECT_EQ(ResolveServerOptions(peer, Embedded(), NoEnvironment)->peer_tls_ca, "ca.pem");
}

TEST(ServerOptions, TracingTakesTheFlagThenTheEnvironment) {
  ServerFlags flags;
  flags.otlp_endpoint = "http://collector:4318";
  flags.trace_sample_ratio = "0.25";
  ServerOptions options =
      ::resched::testing::OkValue(ResolveServerOptions(flags, Embedded(), NoEnvironment));
  EXPECT_EQ(options.tracing.traces_url, "http://collector:4318/v1/traces");
  EXPECT_DOUBLE_EQ(options.tracing.sample_ratio, 0.25);
  options = ::resched::testing::OkValue(
      ResolveServerOptions({}, Embedded(), [](const char* name) -> std::string {
        return std::string(name) == "OTEL_EXPORTER_OTLP_ENDPOINT" ? "http://env:4318" : "";
      }));
  EXPECT_EQ(options.tracing.traces_url, "http://env:4318/v1/traces");
}

}  // namespace
}  // namespace resched::server
