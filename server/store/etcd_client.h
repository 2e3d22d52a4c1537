// A client of etcd's v3 API (etcd 3.4, Debian's etcd-server): the key-value store, transactions,
// leases, compaction and watches, as the replicated store needs them. Unary calls go over gRPC,
// through stubs generated from etcd's .proto files (etcd_grpc.cc); watches, which the store does
// not use yet, through etcd's JSON gateway over libcurl (etcd_watch.cc). docs/dependencies.md
// says why.
//
// Keys and values are bytes. Errors keep etcd's gRPC code (absl's codes are the same numbers)
// and message. A request is sent to the endpoint that answered last; when no connection can be
// made to it, the next endpoint is tried, so a client given every member's address rides out the
// loss of one. A request sent but not answered (a timeout, a dropped connection) is not sent
// again: its outcome is unknown, and the caller gets UNAVAILABLE saying so (a change conditioned
// on what it read tells, when the caller looks, whether it landed).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/base/mutex.h"

namespace grpc {
class ChannelCredentials;
class ClientContext;
class Status;
}  // namespace grpc

namespace resched::server::etcd {

struct ClientOptions {
  // http://host:port or https://host:port, one per member; at least one.
  std::vector<std::string> endpoints;
  // How long one request may take, connecting included.
  absl::Duration request_timeout = absl::Seconds(5);
  // TLS to etcd (https endpoints): the CA that signed the members' certificates, and this
  // client's certificate and key when etcd asks for one. Empty: the system's CAs, no certificate.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  // etcd's authentication: a user and its password; empty: none.
  std::string user;
  std::string password;
};

struct KeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  std::int64_t lease = 0;
};

struct RangeResult {
  std::vector<KeyValue> kvs;
  bool more = false;          // the limit cut the range short
  std::int64_t count = 0;     // keys in the range, whatever the limit
  std::int64_t revision = 0;  // the store's revision the range was read at
};

// The range of every key that starts with `prefix`: from PrefixStart (the prefix; for an empty
// one, the least key etcd takes) up to PrefixEnd (etcd's range_end).
std::string PrefixStart(absl::string_view prefix);
std::string PrefixEnd(absl::string_view prefix);

// One condition of a transaction on one key.
struct Compare {
  enum class Target { kVersion, kCreateRevision, kModRevision, kValue, kLease };
  enum class Result { kEqual, kGreater, kLess, kNotEqual };
  std::string key;
  Target target = Target::kVersion;
  Result result = Result::kEqual;
  std::int64_t number = 0;  // for every target but kValue
  std::string value;        // for kValue

  // The key holds `value`.
  static Compare ValueIs(std::string key, std::string value);
  // The key exists and is attached to `lease` (it goes when the lease expires).
  static Compare LeaseIs(std::string key, std::int64_t lease);
  // The key does not exist.
  static Compare Missing(std::string key);
  // The key was last changed at `revision` (0: it does not exist).
  static Compare ModRevisionIs(std::string key, std::int64_t revision);
};

// One operation of a transaction.
struct Op {
  enum class Kind { kPut, kDeleteRange, kRange };
  Kind kind = Kind::kPut;
  std::string key;
  std::string range_end;   // kDeleteRange, kRange: empty for the key alone
  std::string value;       // kPut
  std::int64_t lease = 0;  // kPut: 0 for none
  std::int64_t limit = 0;  // kRange: 0 for all

  static Op Put(std::string key, std::string value, std::int64_t lease = 0);
  static Op Delete(std::string key);
  static Op DeletePrefix(absl::string_view prefix);
  // Deletes the keys from `key` up to `range_end` (exclusive).
  static Op DeleteRange(std::string key, std::string range_end);
  static Op Get(std::string key);
};

struct TxnResult {
  bool succeeded = false;     // the conditions held: the success operations ran
  std::int64_t revision = 0;  // the store's revision after the transaction
  // For each operation that ran, in order: what a kRange read (empty for the others).
  std::vector<RangeResult> ranges;
};

struct Lease {
  std::int64_t id = 0;
  std::int64_t ttl_seconds = 0;  // as granted (etcd may raise a TTL below its minimum)
};

// What a watch hears: the changes of one revision or more, in order, or the end of the watch.
struct WatchEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  KeyValue kv;  // for kDelete, the key and the revision of the delete
};
struct WatchBatch {
  std::vector<WatchEvent> events;
  std::int64_t revision = 0;  // the store's revision when etcd sent the batch
  // Set when the watch ended: etcd compacted past the revision it had to start from
  // (OUT_OF_RANGE, naming the compacted revision), the watch was cancelled by etcd, or no
  // endpoint answered for the whole retry period (UNAVAILABLE). No batch follows it.
  absl::Status ended;
};

class Client;

// A watch of a key range from a revision on, delivered on a thread of its own; the client that
// started it must outlive it. It resumes on
// another endpoint after a dropped connection, from the revision after the last one delivered,
// so that no change is missed or repeated. Destroying it stops it (and waits for its thread).
class Watch {
 public:
  ~Watch();
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

 private:
  friend class Client;
  Watch() = default;
  std::atomic<bool> stopping_{false};
  void* multi_ = nullptr;  // the libcurl multi handle the watch's stream runs on
  std::thread thread_;
};

class Client {
 public:
  // INVALID_ARGUMENT when there is no endpoint or one is not an http(s) URL. Makes no
  // connection: the first request does.
  static absl::StatusOr<std::unique_ptr<Client>> Create(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const ClientOptions& options() const { return options_; }

  // The key's value and revisions; nullopt when it does not exist.
  absl::StatusOr<std::optional<KeyValue>> Get(const std::string& key);
  // The keys from `key` up to `range_end` (exclusive; empty: `key` alone), in key order, at most
  // `limit` of them (0: all), read at `revision` (0: the latest).
  absl::StatusOr<RangeResult> Range(const std::string& key, const std::string& range_end,
                                    std::int64_t limit = 0, std::int64_t revision = 0);
  absl::StatusOr<RangeResult> GetPrefix(absl::string_view prefix, std::int64_t limit = 0);
  // Returns the store's revision after the put.
  absl::StatusOr<std::int64_t> Put(const std::string& key, const std::string& value,
                                   std::int64_t lease = 0);
  // Returns how many keys were deleted.
  absl::StatusOr<std::int64_t> DeletePrefix(absl::string_view prefix);
  // Runs `success` when every comparison holds, else `failure`, atomically.
  absl::StatusOr<TxnResult> Txn(const std::vector<Compare>& compares,
                                const std::vector<Op>& success, const std::vector<Op>& failure);

  // A lease that expires `ttl` after its last keep-alive (rounded up to whole seconds).
  absl::StatusOr<Lease> GrantLease(absl::Duration ttl);
  // Renews the lease; returns its TTL in seconds. NOT_FOUND when it has expired (or was
  // revoked): the keys attached to it are gone.
  absl::StatusOr<std::int64_t> KeepAlive(std::int64_t lease);
  // Ends the lease now, deleting its keys.
  absl::Status RevokeLease(std::int64_t lease);

  // Drops the history before `revision` (watches can no longer start before it).
  absl::Status Compact(std::int64_t revision);
  // The size of the answering member's database file, in bytes.
  absl::StatusOr<std::int64_t> DatabaseSize();

  // Watches the keys from `key` up to `range_end` (empty: `key` alone) from `start_revision`
  // (0: from now), calling `deliver` with each batch, in order, on the watch's thread.
  // `deliver` must not destroy the watch. The watch retries unreachable endpoints for
  // `give_up_after` before it ends with UNAVAILABLE.
  std::unique_ptr<Watch> StartWatch(std::string key, std::string range_end,
                                    std::int64_t start_revision,
                                    std::function<void(WatchBatch)> deliver,
                                    absl::Duration give_up_after = absl::Seconds(30));

 private:
  // One member's gRPC channel and stubs (etcd_grpc.cc).
  struct Member;

  explicit Client(ClientOptions options);

  // Makes each member's channel; INVALID_ARGUMENT when a TLS file cannot be read.
  absl::Status ConnectMembers();
  // A new channel to the member of endpoint `index`.
  std::shared_ptr<Member> Connect(std::size_t index) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs `call` on a member: the one that answered last, then the others in turn while none can
  // be connected to, with the request timeout and the authentication token.
  absl::Status Call(const std::function<grpc::Status(Member&, grpc::ClientContext&)>& call);
  // The authentication token, fetched from `member` when there is none yet; empty without
  // authentication.
  absl::StatusOr<std::string> Token(Member& member);
  // A gRPC error of `member` as the client's callers see it.
  absl::Status StatusFrom(const Member& member, const grpc::Status& status) const;
  // Runs one POST on `endpoint`; sets `unreachable` when no connection could be made.
  absl::StatusOr<std::string> PostTo(const std::string& endpoint, const std::string& path,
                                     const std::string& body, bool& unreachable);
  // The header etcd's authentication needs, fetching a token when there is none yet; empty
  // without authentication.
  absl::StatusOr<std::string> AuthHeader(const std::string& endpoint);
  // Makes a libcurl handle POST `body` to `url` with `headers` (a curl_slist), with the TLS
  // options.
  void SetPost(void* curl, const std::string& url, void* headers, const std::string& body) const;
  // A streaming POST for `watch`: `on_line` gets each JSON message (false stops the stream);
  // returns OK when the watch is stopping or `on_line` stopped it, UNAVAILABLE when the stream
  // failed or ended.
  absl::Status Stream(Watch& watch, const std::string& endpoint, const std::string& path,
                      const std::string& body,
                      const std::function<bool(absl::string_view)>& on_line);
  void WatchLoop(Watch& watch, const std::string& key, const std::string& range_end,
                 std::int64_t start_revision, const std::function<void(WatchBatch)>& deliver,
                 absl::Duration give_up_after);

  const ClientOptions options_;
  Mutex mu_;
  // One per endpoint, in order: replaced by a new one when it cannot be reached; a call holds
  // the one it uses (shared: Member is complete only in etcd_grpc.cc).
  std::vector<std::shared_ptr<Member>> members_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<grpc::ChannelCredentials>> credentials_ ABSL_GUARDED_BY(mu_);
  std::size_t current_ ABSL_GUARDED_BY(mu_) = 0;  // the endpoint that answered last
  std::string token_ ABSL_GUARDED_BY(mu_);        // etcd's authentication token
  // libcurl handles kept between requests, so that their connections are reused.
  std::vector<void*> idle_handles_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server::etcd
