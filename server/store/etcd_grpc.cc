// Client's unary calls (server/store/etcd_client.h) over etcd's gRPC API, through stubs generated
// from etcd's own .proto files (proto/CMakeLists.txt, resched_etcd_api): keys, transactions,
// leases, compaction, status and authentication. One channel per member; a call goes to the
// member that answered last, and to the next ones while none can be connected to.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "etcd/etcdserver/etcdserverpb/rpc.grpc.pb.h"
#include "server/store/etcd_client.h"

namespace resched::server::etcd {

namespace pb = ::etcdserverpb;

struct Client::Member {
  std::string endpoint;  // as given, for errors
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::KV::Stub> kv;
  std::unique_ptr<pb::Lease::Stub> lease;
  std::unique_ptr<pb::Maintenance::Stub> maintenance;
  std::unique_ptr<pb::Auth::Stub> auth;
};

namespace {

KeyValue KeyValueFrom(const ::mvccpb::KeyValue& kv) {
  return KeyValue{.key = kv.key(),
                  .value = kv.value(),
                  .create_revision = kv.create_revision(),
                  .mod_revision = kv.mod_revision(),
                  .version = kv.version(),
                  .lease = kv.lease()};
}

RangeResult RangeFrom(const pb::RangeResponse& response) {
  RangeResult range;
  range.kvs.reserve(static_cast<std::size_t>(response.kvs_size()));
  for (const ::mvccpb::KeyValue& kv : response.kvs()) range.kvs.push_back(KeyValueFrom(kv));
  range.more = response.more();
  range.count = response.count();
  range.revision = response.header().revision();
  return range;
}

void ToProto(const Op& op, pb::RequestOp* out) {
  switch (op.kind) {
    case Op::Kind::kPut: {
      pb::PutRequest* put = out->mutable_request_put();
      put->set_key(op.key);
      put->set_value(op.value);
      put->set_lease(op.lease);
      return;
    }
    case Op::Kind::kDeleteRange: {
      pb::DeleteRangeRequest* del = out->mutable_request_delete_range();
      del->set_key(op.key);
      del->set_range_end(op.range_end);
      return;
    }
    case Op::Kind::kRange: {
      pb::RangeRequest* range = out->mutable_request_range();
      range->set_key(op.key);
      range->set_range_end(op.range_end);
      range->set_limit(op.limit);
      return;
    }
  }
}

void ToProto(const Compare& compare, pb::Compare* out) {
  static constexpr pb::Compare::CompareResult kResults[] = {
      pb::Compare::EQUAL, pb::Compare::GREATER, pb::Compare::LESS, pb::Compare::NOT_EQUAL};
  out->set_key(compare.key);
  out->set_result(kResults[static_cast<int>(compare.result)]);
  switch (compare.target) {
    case Compare::Target::kVersion:
      out->set_target(pb::Compare::VERSION);
      out->set_version(compare.number);
      break;
    case Compare::Target::kCreateRevision:
      out->set_target(pb::Compare::CREATE);
      out->set_create_revision(compare.number);
      break;
    case Compare::Target::kModRevision:
      out->set_target(pb::Compare::MOD);
      out->set_mod_revision(compare.number);
      break;
    case Compare::Target::kValue:
      out->set_target(pb::Compare::VALUE);
      out->set_value(compare.value);
      break;
    case Compare::Target::kLease:
      out->set_target(pb::Compare::LEASE);
      out->set_lease(compare.number);
      break;
  }
}

absl::StatusOr<std::string> ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path);
  std::stringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) {
    return absl::InvalidArgumentError(absl::StrCat("etcd ", what, ": cannot read '", path, "'"));
  }
  return text.str();
}

// The channel's credentials for an http:// or https:// member.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> CredentialsFor(
    const std::string& endpoint, const ClientOptions& options) {
  if (absl::StartsWith(endpoint, "http://")) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  if (!options.ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadFile(options.ca_file, "CA file");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *std::move(ca);
  }
  if (!options.cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadFile(options.cert_file, "certificate file");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadFile(options.key_file, "key file");
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = *std::move(cert);
    ssl.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(ssl);
}

}  // namespace

absl::Status Client::ConnectMembers() {
  MutexLock lock(&mu_);
  for (const std::string& endpoint : options_.endpoints) {
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
        CredentialsFor(endpoint, options_);
    if (!credentials.ok()) return credentials.status();
    credentials_.push_back(*std::move(credentials));
    members_.push_back(Connect(members_.size()));
  }
  return absl::OkStatus();
}

std::shared_ptr<Client::Member> Client::Connect(std::size_t index) const {
  const std::string& endpoint = options_.endpoints[index];
  grpc::ChannelArguments arguments;
  // A snapshot's parts and a scan's pages are below 2 MiB; etcd answers up to its own limit.
  arguments.SetMaxReceiveMessageSize(-1);
  auto member = std::make_shared<Member>();
  member->endpoint = endpoint;
  member->channel = grpc::CreateCustomChannel(endpoint.substr(endpoint.find("://") + 3),
                                              credentials_[index], arguments);
  member->kv = pb::KV::NewStub(member->channel);
  member->lease = pb::Lease::NewStub(member->channel);
  member->maintenance = pb::Maintenance::NewStub(member->channel);
  member->auth = pb::Auth::NewStub(member->channel);
  return member;
}

absl::StatusOr<std::string> Client::Token(Member& member) {
  if (options_.user.empty()) return std::string();
  {
    MutexLock lock(&mu_);
    if (!token_.empty()) return token_;
  }
  pb::AuthenticateRequest request;
  request.set_name(options_.user);
  request.set_password(options_.password);
  pb::AuthenticateResponse response;
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + options_.request_timeout));
  const grpc::Status status = member.auth->Authenticate(&context, request, &response);
  if (!status.ok()) return StatusFrom(member, status);
  if (response.token().empty()) {
    return absl::UnauthenticatedError("etcd gave no authentication token");
  }
  MutexLock lock(&mu_);
  token_ = response.token();
  return token_;
}

absl::Status Client::StatusFrom(const Member& member, const grpc::Status& status) const {
  const std::string message = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return absl::UnavailableError(
          absl::StrCat("etcd at ", member.endpoint, ": no answer within ",
                       absl::FormatDuration(options_.request_timeout),
                       " (the request may or may not have been applied)"));
    case grpc::StatusCode::UNAVAILABLE:
      return absl::UnavailableError(absl::StrCat("etcd at ", member.endpoint, ": ", message));
    default:
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          absl::StrCat("etcd: ", message));
  }
}

absl::Status Client::Call(const std::function<grpc::Status(Member&, grpc::ClientContext&)>& call) {
  std::size_t first = 0;
  {
    MutexLock lock(&mu_);
    first = current_;
  }
  const std::size_t n = options_.endpoints.size();
  std::vector<std::string> failures;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t index = (first + i) % n;
    std::shared_ptr<Member> held;
    {
      MutexLock lock(&mu_);
      held = members_[index];
    }
    Member& member = *held;
    grpc::Status status;
    for (int attempt = 0; attempt < 2; ++attempt) {
      absl::StatusOr<std::string> token = Token(member);
      if (!token.ok()) {
        status = grpc::Status(static_cast<grpc::StatusCode>(token.status().code()),
                              std::string(token.status().message()));
        break;
      }
      grpc::ClientContext context;
      context.set_deadline(absl::ToChronoTime(absl::Now() + options_.request_timeout));
      if (!token->empty()) context.AddMetadata("token", *token);
      status = call(member, context);
      // The token expired (etcd's simple tokens do after five minutes): once more with a new one.
      if (status.error_code() != grpc::StatusCode::UNAUTHENTICATED || token->empty()) break;
      MutexLock lock(&mu_);
      token_.clear();
    }
    if (status.ok()) {
      MutexLock lock(&mu_);
      current_ = index;
      return absl::OkStatus();
    }
    // A member that could not be connected to never saw the request: the next one is tried.
    // One that answered without a leader, or did not answer in time, is left for the next call.
    const bool unreachable = status.error_code() == grpc::StatusCode::UNAVAILABLE &&
                             absl::StrContains(status.error_message(), "failed to connect");
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
        status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      MutexLock lock(&mu_);
      if (current_ == index) current_ = (index + 1) % n;
    }
    if (!unreachable) return StatusFrom(member, status);
    // A new channel for the next call: gRPC's own waits longer and longer (seconds) before it
    // tries a member it could not reach again, and a member that restarts must be found at once.
    {
      MutexLock lock(&mu_);
      if (members_[index] == held) members_[index] = Connect(index);
    }
    failures.push_back(std::string(StatusFrom(member, status).message()));
  }
  return absl::UnavailableError(
      absl::StrCat("no etcd endpoint could be reached: ", absl::StrJoin(failures, "; ")));
}

absl::StatusOr<RangeResult> Client::Range(const std::string& key, const std::string& range_end,
                                          std::int64_t limit, std::int64_t revision) {
  pb::RangeRequest request;
  request.set_key(key);
  request.set_range_end(range_end);
  request.set_limit(limit);
  request.set_revision(revision);
  pb::RangeResponse response;
  absl::Status status = Call([&](Member& member, grpc::ClientContext& context) {
    return member.kv->Range(&context, request, &response);
  });
  if (!status.ok()) return status;
  return RangeFrom(response);
}

absl::StatusOr<std::int64_t> Client::Put(const std::string& key, const std::string& value,
                                         std::int64_t lease) {
  pb::PutRequest request;
  request.set_key(key);
  request.set_value(value);
  request.set_lease(lease);
  pb::PutResponse response;
  absl::Status status = Call([&](Member& member, grpc::ClientContext& context) {
    return member.kv->Put(&context, request, &response);
  });
  if (!status.ok()) return status;
  return response.header().revision();
}

absl::StatusOr<std::int64_t> Client::DeletePrefix(absl::string_view prefix) {
  pb::DeleteRangeRequest request;
  request.set_key(PrefixStart(prefix));
  request.set_range_end(PrefixEnd(prefix));
  pb::DeleteRangeResponse response;
  absl::Status status = Call([&](Member& member, grpc::ClientContext& context) {
    return member.kv->DeleteRange(&context, request, &response);
  });
  if (!status.ok()) return status;
  return response.deleted();
}

absl::StatusOr<TxnResult> Client::Txn(const std::vector<Compare>& compares,
                                      const std::vector<Op>& success,
                                      const std::vector<Op>& failure) {
  pb::TxnRequest request;
  for (const Compare& compare : compares) ToProto(compare, request.add_compare());
  for (const Op& op : success) ToProto(op, request.add_success());
  for (const Op& op : failure) ToProto(op, request.add_failure());
  pb::TxnResponse response;
  absl::Status status = Call([&](Member& member, grpc::ClientContext& context) {
    return member.kv->Txn(&context, request, &response);
  });
  if (!status.ok()) return status;
  TxnResult result;
  result.succeeded = response.succeeded();
  result.revision = response.header().revision();
  result.ranges.reserve(static_cast<std::size_t>(response.responses_size()));
  for (const pb::ResponseOp& op : response.responses()) {
    result.ranges.push_back(op.has_response_range() ? RangeFrom(op.response_range())
                                                    : RangeResult());
  }
  return result;
}

absl::StatusOr<Lease> Client::GrantLease(absl::Duration ttl) {
  pb::LeaseGrantRequest request;
  request.set_ttl(
      std::max<std::int64_t>(1, absl::ToInt64Seconds(absl::Ceil(ttl, absl::Seconds(1)))));
  pb::LeaseGrantResponse response;
  absl::Status status = Call([&](Member& member, grpc::ClientContext& context) {
    return member.lease->LeaseGrant(&context, request, &response);
  });
  if (!status.ok()) return status;
  if (response.id() == 0) {
    return absl::InternalError(absl::StrCat("etcd granted no lease: ", response.error()));
  }
  return Lease{.id = response.id(), .ttl_seconds = response.ttl()};
}

absl::StatusOr<std::int64_t> Client::KeepAlive(std::int64_t lease) {
  pb::LeaseKeepAliveRequest request;
  request.set_id(lease);
  pb::LeaseKeepAliveResponse response;
  // etcd's keep-alive is a stream; one request and its answer renew the lease once.
  absl::Status status = Call([&](Member& member, grpc::ClientContext& context) {
    auto stream = member.lease->LeaseKeepAlive(&context);
    const bool answered = stream->Write(request) && stream->WritesDone() && stream->Read(&response);
    // etcd ends the stream once this side has (WritesDone).
    const grpc::Status finished = stream->Finish();
    if (answered) return grpc::Status::OK;
    return finished.ok() ? grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                        "the keep-alive stream ended without an answer")
                         : finished;
  });
  if (!status.ok()) return status;
  if (response.ttl() <= 0) {
    return absl::NotFoundError(absl::StrCat("etcd lease ", lease, " has expired"));
  }
  return response.ttl();
}

absl::Status Client::RevokeLease(std::int64_t lease) {
  pb::LeaseRevokeRequest request;
  request.set_id(lease);
  pb::LeaseRevokeResponse response;
  return Call([&](Member& member, grpc::ClientContext& context) {
    return member.lease->LeaseRevoke(&context, request, &response);
  });
}

absl::Status Client::Compact(std::int64_t revision) {
  pb::CompactionRequest request;
  request.set_revision(revision);
  pb::CompactionResponse response;
  return Call([&](Member& member, grpc::ClientContext& context) {
    return member.kv->Compact(&context, request, &response);
  });
}

absl::StatusOr<std::int64_t> Client::DatabaseSize() {
  pb::StatusRequest request;
  pb::StatusResponse response;
  absl::Status status = Call([&](Member& member, grpc::ClientContext& context) {
    return member.maintenance->Status(&context, request, &response);
  });
  if (!status.ok()) return status;
  return response.dbsize();
}

}  // namespace resched::server::etcd
