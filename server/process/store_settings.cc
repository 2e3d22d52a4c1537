#include "server/process/store_settings.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace resched::server {

std::string AdvertisedAddress(const std::string& configured, const std::string& listen, int port) {
  if (!configured.empty()) return configured;
  const std::size_t colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::") {
    char name[256] = {};
    host = gethostname(name, sizeof name - 1) == 0 && name[0] != '\0' ? name : "localhost";
  }
  return absl::StrCat(host, ":", port);
}

absl::StatusOr<StoreSettings> ResolveStore(const StoreFlags& flags,
                                           const ::resched::v1::ServerConfig& config) {
  const std::string store =
      !flags.store.empty() ? flags.store : (config.store().empty() ? "local" : config.store());
  if (store != "local" && store != "etcd") {
    return absl::InvalidArgumentError(absl::StrCat(flags.store.empty() ? "store" : "--store",
                                                   " must be local or etcd, got '", store, "'"));
  }
  StoreSettings out;
  if (store == "local") {
    if (!flags.etcd_endpoints.empty() || !flags.etcd_prefix.empty() ||
        !flags.advertise_address.empty()) {
      return absl::InvalidArgumentError(
          "--etcd-endpoints, --etcd-prefix and --advertise-address need --store etcd (or store: "
          "etcd in the config)");
    }
    return out;
  }
  out.etcd = true;
  out.advertise_address = flags.advertise_address;
  if (!out.advertise_address.empty()) {
    const std::size_t colon = out.advertise_address.rfind(':');
    int port = 0;
    if (colon == std::string::npos || colon == 0 ||
        !absl::SimpleAtoi(absl::string_view(out.advertise_address).substr(colon + 1), &port) ||
        port <= 0 || port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("--advertise-address: '", out.advertise_address, "' is not HOST:PORT"));
    }
  }
  const v1::EtcdStoreConfig& etcd = config.etcd();
  EtcdStoreOptions& options = out.etcd_options;
  if (!flags.etcd_endpoints.empty()) {
    options.client.endpoints = absl::StrSplit(flags.etcd_endpoints, ',', absl::SkipEmpty());
  } else {
    options.client.endpoints.assign(etcd.endpoints().begin(), etcd.endpoints().end());
  }
  if (options.client.endpoints.empty()) {
    return absl::InvalidArgumentError(
        "--store etcd needs --etcd-endpoints URL[,URL...] (or etcd.endpoints in the config)");
  }
  for (const std::string& endpoint : options.client.endpoints) {
    if (!absl::StartsWith(endpoint, "http://") && !absl::StartsWith(endpoint, "https://")) {
      return absl::InvalidArgumentError(
          absl::StrCat(flags.etcd_endpoints.empty() ? "etcd.endpoints" : "--etcd-endpoints", ": '",
                       endpoint, "' is not an http:// or https:// URL"));
    }
  }
  const std::string prefix = !flags.etcd_prefix.empty() ? flags.etcd_prefix : etcd.prefix();
  if (!prefix.empty()) options.prefix = prefix;
  if (options.prefix.front() != '/' || options.prefix.back() == '/' || options.prefix.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(flags.etcd_prefix.empty() ? "etcd.prefix" : "--etcd-prefix", ": '",
                     options.prefix, "' must start with '/' and not end with one"));
  }
  if (etcd.lease_ttl_ms() != 0) {
    if (etcd.lease_ttl_ms() < 1000 || etcd.lease_ttl_ms() > 600000) {
      return absl::InvalidArgumentError(
          absl::StrCat("etcd.lease_ttl_ms must be from 1000 to 600000 (0 means 2000), got ",
                       etcd.lease_ttl_ms()));
    }
    options.lease_ttl = absl::Milliseconds(etcd.lease_ttl_ms());
  }
  if (etcd.request_timeout_ms() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "etcd.request_timeout_ms must be >= 0 (0 means 5000), got ", etcd.request_timeout_ms()));
  }
  if (etcd.request_timeout_ms() > 0) {
    options.client.request_timeout = absl::Milliseconds(etcd.request_timeout_ms());
  }
  options.client.ca_file = etcd.ca_file();
  options.client.cert_file = etcd.cert_file();
  options.client.key_file = etcd.key_file();
  if (options.client.cert_file.empty() != options.client.key_file.empty()) {
    return absl::InvalidArgumentError("etcd.cert_file and etcd.key_file go together");
  }
  options.client.user = etcd.user();
  out.etcd_password_file = etcd.password_file();
  if (options.client.user.empty() != out.etcd_password_file.empty()) {
    return absl::InvalidArgumentError("etcd.user and etcd.password_file go together");
  }
  return out;
}

absl::Status ReadEtcdPassword(StoreSettings& settings) {
  if (settings.etcd_password_file.empty()) return absl::OkStatus();
  std::ifstream in(settings.etcd_password_file);
  std::stringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) {
    return absl::NotFoundError(
        absl::StrCat("etcd.password_file: cannot read '", settings.etcd_password_file, "'"));
  }
  std::string password = text.str();
  if (!password.empty() && password.back() == '\n') password.pop_back();
  settings.etcd_options.client.password = std::move(password);
  return absl::OkStatus();
}

}  // namespace resched::server
