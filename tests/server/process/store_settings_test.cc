// Where the journal goes (ResolveStore, and through ResolveServerOptions): the local store by
// default, etcd when --store or the config's store says so, with the flag winning over the
// config; etcd without endpoints, bad endpoints, prefixes and TTLs, half-given TLS or
// authentication, the local store's flags with etcd and etcd's flags without it are refused
// naming the flag or field. A replica on etcd keeps nothing on local disk: no data directory,
// its audit log on standard error.
#include "server/process/store_settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/process/config.h"
#include "server/process/server_options.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"

namespace resched::server {
namespace {

using ::resched::testing::OkValue;
using ::resched::testing::StatusIs;
using ::testing::HasSubstr;

std::string NoEnvironment(const char*) { return ""; }

TEST(StoreSettings, LocalByDefaultAndEtcdFromTheConfigOrTheFlag) {
  ::resched::v1::ServerConfig config;
  EXPECT_FALSE(OkValue(ResolveStore({}, config)).etcd);

  config.set_store("etcd");
  config.mutable_etcd()->add_endpoints("http://10.0.0.1:2379");
  config.mutable_etcd()->add_endpoints("https://10.0.0.2:2379");
  config.mutable_etcd()->set_lease_ttl_ms(3000);
  config.mutable_etcd()->set_request_timeout_ms(700);
  config.mutable_etcd()->set_ca_file("ca.pem");
  config.mutable_etcd()->set_user("resched");
  config.mutable_etcd()->set_password_file("password");
  StoreSettings settings = OkValue(ResolveStore({}, config));
  ASSERT_TRUE(settings.etcd);
  const EtcdStoreOptions& etcd = settings.etcd_options;
  EXPECT_EQ(etcd.client.endpoints,
            (std::vector<std::string>{"http://10.0.0.1:2379", "https://10.0.0.2:2379"}));
  EXPECT_EQ(etcd.prefix, "/resched");
  EXPECT_EQ(etcd.lease_ttl, absl::Seconds(3));
  EXPECT_EQ(etcd.client.request_timeout, absl::Milliseconds(700));
  EXPECT_EQ(etcd.client.ca_file, "ca.pem");
  EXPECT_EQ(etcd.client.user, "resched");
  EXPECT_EQ(settings.etcd_password_file, "password");

  // The flags win: the endpoints and prefix, and local over the config's etcd.
  settings = OkValue(ResolveStore({.store = "",
                                   .etcd_endpoints = "http://a:1,,http://b:2",
                                   .etcd_prefix = "/team/x",
                                   .advertise_address = ""},
                                  config));
  EXPECT_EQ(settings.etcd_options.client.endpoints,
            (std::vector<std::string>{"http://a:1", "http://b:2"}));
  EXPECT_EQ(settings.etcd_options.prefix, "/team/x");
  EXPECT_FALSE(
      OkValue(
          ResolveStore(
              {.store = "local", .etcd_endpoints = "", .etcd_prefix = "", .advertise_address = ""},
              config))
          .etcd);
}

TEST(StoreSettings, BadValuesAreRefusedNamingTheFlagOrField) {
  ::resched::v1::ServerConfig config;
  auto refused = [&](const StoreFlags& flags, const std::string& message) {
    EXPECT_THAT(ResolveStore(flags, config),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)));
  };
  refused({.store = "s3", .etcd_endpoints = "", .etcd_prefix = "", .advertise_address = ""},
          "--store must be local or etcd, got 's3'");
  refused({.store = "etcd", .etcd_endpoints = "", .etcd_prefix = "", .advertise_address = ""},
          "--store etcd needs --etcd-endpoints");
  refused({.store = "", .etcd_endpoints = "http://a:1", .etcd_prefix = "", .advertise_address = ""},
          "--etcd-endpoints, --etcd-prefix and --advertise-address need --store etcd");
  refused({.store = "etcd", .etcd_endpoints = "a:1", .etcd_prefix = "", .advertise_address = ""},
          "--etcd-endpoints: 'a:1' is not an http:// or https:// URL");
  refused({.store = "etcd",
           .etcd_endpoints = "http://a:1",
           .etcd_prefix = "x/",
           .advertise_address = ""},
          "--etcd-prefix: 'x/' must start with '/'");
  refused({.store = "etcd",
           .etcd_endpoints = "http://a:1",
           .etcd_prefix = "",
           .advertise_address = "10.0.0.1"},
          "--advertise-address: '10.0.0.1' is not HOST:PORT");
  refused({.store = "", .etcd_endpoints = "", .etcd_prefix = "", .advertise_address = "a:1"},
          "--advertise-address need --store etcd");
  const StoreFlags etcd = {
      .store = "etcd", .etcd_endpoints = "http://a:1", .etcd_prefix = "", .advertise_address = ""};
  config.mutable_etcd()->set_lease_ttl_ms(500);
  refused(etcd, "etcd.lease_ttl_ms must be from 1000 to 600000");
  config.mutable_etcd()->set_lease_ttl_ms(0);
  config.mutable_etcd()->set_cert_file("c.pem");
  refused(etcd, "etcd.cert_file and etcd.key_file go together");
  config.mutable_etcd()->set_key_file("k.pem");
  config.mutable_etcd()->set_user("u");
  refused(etcd, "etcd.user and etcd.password_file go together");
  config.set_store("disk");
  refused({}, "store must be local or etcd, got 'disk'");
}

TEST(StoreSettings, AReplicaIsReachedAtItsListenAddressOrTheOneItIsGiven) {
  EXPECT_EQ(AdvertisedAddress("resched-1.resched:50051", "0.0.0.0:50051", 50051),
            "resched-1.resched:50051");
  EXPECT_EQ(AdvertisedAddress("", "127.0.0.1:0", 41234), "127.0.0.1:41234");
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(AdvertisedAddress("", "0.0.0.0:50051", 50051), absl::StrCat(host, ":50051"));
  EXPECT_EQ(AdvertisedAddress("", "[::]:50051", 50051), absl::StrCat(host, ":50051"));
}

TEST(StoreSettings, AReplicaOnEtcdKeepsNothingOnLocalDisk) {
  ServerFlags flags;
  flags.store = "etcd";
  flags.etcd_endpoints = "http://127.0.0.1:2379";
  // The embedded configuration names a data directory; it does not apply.
  const ServerOptions options =
      OkValue(ResolveServerOptions(flags, OkValue(ParseConfig(kDefaultConfigYaml)), NoEnvironment));
  EXPECT_TRUE(options.store.etcd);
  EXPECT_TRUE(options.data_dir.empty());
  EXPECT_EQ(options.audit_log, "-");
  ServerFlags with_dir = flags;
  with_dir.data_dir = "/d";
  ServerFlags ephemeral = flags;
  ephemeral.ephemeral = true;
  ServerFlags accepting = flags;
  accepting.accept_data_loss = true;
  for (const auto& [local, flag] :
       {std::pair{with_dir, "--data-dir"}, std::pair{ephemeral, "--ephemeral"},
        std::pair{accepting, "--accept-data-loss"}}) {
    EXPECT_THAT(ResolveServerOptions(local, {}, NoEnvironment),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         std::string(flag) + " applies to the local store, not to --store etcd"));
  }
}

TEST(StoreSettings, ThePasswordIsReadFromItsFile) {
  ::resched::testing::TempDir dir("etcd-password");
  const std::string path = dir.path() + "/password";
  std::ofstream(path) << "s3cret\n";
  StoreSettings settings;
  settings.etcd_password_file = path;
  ASSERT_OK(ReadEtcdPassword(settings));
  EXPECT_EQ(settings.etcd_options.client.password, "s3cret");
  settings.etcd_password_file = dir.path() + "/missing";
  EXPECT_THAT(ReadEtcdPassword(settings),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("etcd.password_file")));
}

}  // namespace
}  // namespace resched::server
