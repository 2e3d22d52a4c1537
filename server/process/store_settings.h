// Where resched-server keeps its journal: the local data directory, or etcd (--store etcd,
// docs/ha.md). Resolved from the flags and the configuration like the other options
// (server/process/server_options.h), a flag winning over the file.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "resched/v1/config.pb.h"
#include "server/store/etcd_journal_store.h"

namespace resched::server {

struct StoreFlags {
  std::string store;           // "local" or "etcd"; empty: the config's, else local
  std::string etcd_endpoints;  // URL[,URL...]
  std::string etcd_prefix;
  std::string advertise_address;  // HOST:PORT
};

struct StoreSettings {
  bool etcd = false;
  // With etcd: the store's options, but for the password, which ReadEtcdPassword reads.
  EtcdStoreOptions etcd_options;
  std::string etcd_password_file;
  // Where the other replicas reach this one (--advertise-address); empty: AdvertisedAddress's
  // default.
  std::string advertise_address;
};

// INVALID_ARGUMENT naming the flag or the config field when a value is wrong, when etcd is asked
// for without endpoints, or etcd's flags are given for the local store.
absl::StatusOr<StoreSettings> ResolveStore(const StoreFlags& flags,
                                           const ::resched::v1::ServerConfig& config);

// Where the other replicas reach this one: `configured` when set, else the listen address with
// the port it got, its host replaced by this machine's name when it is a wildcard (0.0.0.0, [::]).
std::string AdvertisedAddress(const std::string& configured, const std::string& listen, int port);

// Reads etcd.password_file into the options (the file's text, a trailing newline dropped);
// NOT_FOUND naming the file when it cannot be read. Does nothing without a password file.
absl::Status ReadEtcdPassword(StoreSettings& settings);

}  // namespace resched::server
