// Tokens on the real service, table-driven from the service descriptor so that a new RPC cannot
// be forgotten: every method refuses a call without a token or with an unknown one
// (UNAUTHENTICATED), a role below the method's or a cluster not granted (PERMISSION_DENIED), and
// lets the right role through the gate; no token appears in an answer or a log line.
#include <grpcpp/generic/generic_stub.h>
#include <stdlib.h>

#include <fstream>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>

#include "server/auth/access.h"
#include "server/base/log.h"
#include "tests/server/tenant_fixture.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/tokens.h"

namespace resched::server::testing {
namespace {

constexpr char kAdminToken[] = "admin-token-0f3c9";
constexpr char kOperatorToken[] = "operator-token-7d21e";     // granted cluster "default"
constexpr char kUserToken[] = "user-token-a81b4";             // every cluster
constexpr char kOtherUserToken[] = "user-token-on-gpu-55c0";  // granted cluster "gpu" only
constexpr char kUnknownToken[] = "not-a-granted-token-9e1";

class AuthServiceTest : public TokenServerFixture {
 protected:
  void SetUp() override {
    SetLogSinkForTest([this](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_ += line + "\n";
    });
    TokenServerFixture::SetUp();
  }
  void TearDown() override {
    TokenServerFixture::TearDown();
    SetLogSinkForTest(nullptr);
  }
  std::string TokensYaml() const override {
    return absl::StrCat("tokens:\n", "  - {sha256: \"", resched::testing::Sha256Hex(kAdminToken),
                        "\", tenant: ops, role: admin}\n", "  - {sha256: \"",
                        resched::testing::Sha256Hex(kOperatorToken),
                        "\", tenant: ops, role: operator, "
                        "clusters: [default]}\n",
                        "  - {sha256: \"", resched::testing::Sha256Hex(kUserToken),
                        "\", tenant: alice, role: user}\n", "  - {sha256: \"",
                        resched::testing::Sha256Hex(kOtherUserToken),
                        "\", tenant: bob, role: user, "
                        "clusters: [gpu]}\n");
  }
  void ConfigureMore(Application& app) override {
    absl::StatusOr<std::unique_ptr<auth::AuditLog>> audit =
        auth::AuditLog::Open({.path = audit_path_});
    ASSERT_TRUE(audit.ok()) << audit.status();
    app.EnableAudit(*std::move(audit));
  }

  // The audit log's lines so far, parsed.
  std::vector<nlohmann::json> AuditLines() const {
    std::vector<nlohmann::json> lines;
    std::ifstream in(audit_path_);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
  }

  // SubmitJob of a one-processor job on `cluster`, as the holder of `token` (none when empty).
  grpc::Status SubmitAs(const std::string& token, const std::string& cluster,
                        const std::string& request_id) {
    pb::SubmitJobRequest request;
    request.set_cluster(cluster);
    *request.mutable_job() = Rigid(1, 60);
    request.set_request_id(request_id);
    grpc::ClientContext context;
    if (!token.empty()) context.AddMetadata("authorization", absl::StrCat("Bearer ", token));
    pb::SubmitJobResponse response;
    return stub_->SubmitJob(&context, request, &response);
  }

  // Calls `method` with an empty request naming cluster "default" (where the request has a
  // cluster), with `authorization` metadata when given; the call's status.
  grpc::Status CallMethod(const google::protobuf::MethodDescriptor& method,
                          const std::string& authorization) {
    const google::protobuf::Message* prototype =
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(method.input_type());
    std::unique_ptr<google::protobuf::Message> request(prototype->New());
    for (const char* field_name : {"cluster", "name"}) {
      const google::protobuf::FieldDescriptor* field =
          request->GetDescriptor()->FindFieldByName(field_name);
      if (field != nullptr && field->type() == google::protobuf::FieldDescriptor::TYPE_STRING) {
        request->GetReflection()->SetString(request.get(), field, "default");
        break;
      }
    }
    grpc::Slice slice(request->SerializeAsString());
    grpc::ByteBuffer request_buffer(&slice, 1);
    grpc::ByteBuffer response_buffer;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
    if (!authorization.empty()) context.AddMetadata("authorization", authorization);
    grpc::GenericStub stub(grpc::CreateChannel(target_, grpc::InsecureChannelCredentials()));
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, absl::StrCat("/resched.v1.Resched/", method.name()), {},
                   &request_buffer, &response_buffer,
                   [&done](grpc::Status status) { done.set_value(std::move(status)); });
    return done.get_future().get();
  }

  std::mutex log_mu_;
  std::string log_;
  const resched::testing::TempDir audit_dir_{"resched-audit"};
  const std::string audit_path_ = audit_dir_ / "audit.jsonl";
};

TEST_F(AuthServiceTest, EveryMethodIsGatedByTokenRoleAndCluster) {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName("resched.v1.Resched");
  ASSERT_NE(service, nullptr);
  std::vector<std::string> answers;
  for (int i = 0; i < service->method_count(); ++i) {
    const google::protobuf::MethodDescriptor& method = *service->method(i);
    SCOPED_TRACE(method.name());
    const std::optional<auth::MethodAccess> access = auth::AccessOf(method.name());
    ASSERT_TRUE(access.has_value());
    auto expect = [&](const std::string& authorization, grpc::StatusCode code) {
      const grpc::Status status = CallMethod(method, authorization);
      EXPECT_EQ(status.error_code(), code) << authorization << ": " << status.error_message();
      answers.push_back(status.error_message());
    };
    auto expect_through_the_gate = [&](const std::string& authorization) {
      const grpc::Status status = CallMethod(method, authorization);
      EXPECT_NE(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
      EXPECT_NE(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
    };
    expect("", grpc::StatusCode::UNAUTHENTICATED);
    expect(absl::StrCat("Bearer ", kUnknownToken), grpc::StatusCode::UNAUTHENTICATED);
    expect(absl::StrCat("Basic ", kUserToken), grpc::StatusCode::UNAUTHENTICATED);
    if (access->least == auth::Role::kUser) {
      expect_through_the_gate(absl::StrCat("Bearer ", kUserToken));
    } else {
      expect(absl::StrCat("Bearer ", kUserToken), grpc::StatusCode::PERMISSION_DENIED);
    }
    if (access->least == auth::Role::kAdmin) {
      expect(absl::StrCat("Bearer ", kOperatorToken), grpc::StatusCode::PERMISSION_DENIED);
    } else {
      expect_through_the_gate(absl::StrCat("Bearer ", kOperatorToken));
    }
    if (access->per_cluster) {
      // Bob's token is good, but not for cluster "default".
      expect(absl::StrCat("bearer ", kOtherUserToken), grpc::StatusCode::PERMISSION_DENIED);
    }
    expect_through_the_gate(absl::StrCat("Bearer ", kAdminToken));
  }
  std::lock_guard<std::mutex> lock(log_mu_);
  for (const char* token :
       {kAdminToken, kOperatorToken, kUserToken, kOtherUserToken, kUnknownToken}) {
    EXPECT_EQ(log_.find(token), std::string::npos) << token << " in the log:\n" << log_;
    for (const std::string& answer : answers) {
      EXPECT_EQ(answer.find(token), std::string::npos) << token << " in: " << answer;
    }
  }
  EXPECT_NE(log_.find("UNAUTHENTICATED"), std::string::npos);  // refusals are logged
  std::ifstream audit(audit_path_);
  const std::string audit_text((std::istreambuf_iterator<char>(audit)),
                               std::istreambuf_iterator<char>());
  EXPECT_NE(audit_text.find("PERMISSION_DENIED"), std::string::npos);
  for (const char* token :
       {kAdminToken, kOperatorToken, kUserToken, kOtherUserToken, kUnknownToken}) {
    EXPECT_EQ(audit_text.find(token), std::string::npos) << token << " in the audit log";
  }
}

TEST_F(AuthServiceTest, ChangesAreAuditedWithWhoWhatAndTheOutcomeReadsAreNot) {
  ASSERT_TRUE(SubmitAs(kUserToken, "default", "alice-1").ok());
  EXPECT_EQ(SubmitAs("", "default", "anonymous-1").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(SubmitAs(kOtherUserToken, "default", "bob-1").error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  {
    pb::GetClusterRequest request;
    request.set_name("default");
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", kUserToken));
    pb::Cluster cluster;
    ASSERT_TRUE(stub_->GetCluster(&context, request, &cluster).ok());
  }
  const std::vector<nlohmann::json> lines = AuditLines();
  ASSERT_EQ(lines.size(), 3u);  // the GetCluster is a read: not audited
  EXPECT_EQ(lines[0]["tenant"], "alice");
  EXPECT_EQ(lines[0]["role"], "user");
  EXPECT_EQ(lines[0]["method"], "SubmitJob");
  EXPECT_EQ(lines[0]["cluster"], "default");
  EXPECT_EQ(lines[0]["request_id"], "alice-1");
  EXPECT_EQ(lines[0]["code"], "OK");
  EXPECT_EQ(lines[0].count("error"), 0u);
  EXPECT_NE(lines[0]["peer"].get<std::string>().find("127.0.0.1"), std::string::npos);
  EXPECT_EQ(lines[1]["tenant"], "");
  EXPECT_EQ(lines[1]["request_id"], "anonymous-1");
  EXPECT_EQ(lines[1]["code"], "UNAUTHENTICATED");
  EXPECT_EQ(lines[2]["tenant"], "bob");
  EXPECT_EQ(lines[2]["code"], "PERMISSION_DENIED");
  EXPECT_EQ(lines[2]["error"], "SubmitJob: tenant 'bob' is not granted cluster 'default'");
  for (const nlohmann::json& line : lines) EXPECT_FALSE(line["time"].get<std::string>().empty());
  EXPECT_FALSE(lines[0]["made_job"].get<std::string>().empty());  // the id SubmitJob made
}

TEST_F(AuthServiceTest, AuditLinesNameWhatTheCallActedOnAndMade) {
  pb::AddReservationRequest add;
  add.set_cluster("default");
  add.set_processors(1);
  add.mutable_start()->set_seconds(4'000'000'000);
  add.mutable_end()->set_seconds(4'000'003'600);
  pb::Reservation reservation;
  ASSERT_OK(Call(kAdminToken, &pb::Resched::Stub::AddReservation, add, &reservation));
  pb::RemoveReservationRequest remove;
  remove.set_cluster("default");
  remove.set_id(reservation.id());
  pb::RemoveReservationResponse removed;
  ASSERT_OK(Call(kAdminToken, &pb::Resched::Stub::RemoveReservation, remove, &removed));
  pb::DeleteClusterRequest doomed;
  doomed.set_name("nope");
  doomed.set_force(true);
  pb::DeleteClusterResponse deleted;
  EXPECT_EQ(Call(kAdminToken, &pb::Resched::Stub::DeleteCluster, doomed, &deleted).error_code(),
            grpc::StatusCode::NOT_FOUND);
  const std::vector<nlohmann::json> lines = AuditLines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["made_reservation"], reservation.id());
  EXPECT_EQ(lines[1]["reservation"], reservation.id());
  EXPECT_EQ(lines[2]["force"], "true");
  EXPECT_EQ(lines[2]["cluster"], "nope");
}

// ListClusters lists only what GetCluster would answer: the clusters the token is granted.
TEST_F(AuthServiceTest, ATokenListsOnlyTheClustersItIsGranted) {
  CreateClusterAs(kAdminToken, "gpu", 4);
  const auto names = [&](const char* token) {
    pb::ListClustersResponse listed;
    EXPECT_OK(Call(token, &pb::Resched::Stub::ListClusters, pb::ListClustersRequest(), &listed));
    std::vector<std::string> out;
    for (const pb::Cluster& cluster : listed.clusters()) out.push_back(cluster.spec().name());
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(names(kOtherUserToken), std::vector<std::string>{"gpu"});
  EXPECT_EQ(names(kOperatorToken), std::vector<std::string>{"default"});
  EXPECT_EQ(names(kUserToken), (std::vector<std::string>{"default", "gpu"}));
  EXPECT_EQ(names(kAdminToken), (std::vector<std::string>{"default", "gpu"}));
}

// The reproduction that filled a data volume: unauthenticated calls with a request id of megabytes.
// The id is refused at the gate before anything is written, and a flood of refused calls from
// one peer writes a bounded number of lines.
TEST_F(AuthServiceTest, ARefusedCallWritesABoundedLineAndAFloodOfThemFewLines) {
  // 3 MiB: within the fixture's gRPC message limit (4 MiB; resched-server's is 16 MiB).
  EXPECT_EQ(SubmitAs("", "default", std::string(3 << 20, 'x')).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  std::ifstream first(audit_path_, std::ios::binary | std::ios::ate);
  const std::int64_t one_line = first.tellg();
  EXPECT_GT(one_line, 0);
  EXPECT_LT(one_line, 2048) << "one refused call";
  const std::vector<nlohmann::json> refused = AuditLines();
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0]["code"], "INVALID_ARGUMENT");
  EXPECT_THAT(refused[0]["error"].get<std::string>(),
              ::testing::HasSubstr("request_id must have at most 128 characters, got 3145728"));

  constexpr int kFlood = 400;
  for (int i = 0; i < kFlood; ++i) {
    EXPECT_EQ(SubmitAs(kUnknownToken, "default", absl::StrCat("flood-", i)).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  const std::vector<nlohmann::json> lines = AuditLines();
  // The burst and what the bucket refilled while the flood ran (10 lines a second).
  EXPECT_LT(lines.size(), kFlood / 2) << "lines written for " << kFlood << " refused calls";
  EXPECT_GE(lines.size(), 100u);
  std::lock_guard<std::mutex> lock(log_mu_);
  int logged = 0;
  for (size_t at = log_.find("SubmitJob failed"); at != std::string::npos;
       at = log_.find("SubmitJob failed", at + 1)) {
    ++logged;
  }
  EXPECT_LT(logged, kFlood / 2);
}

}  // namespace
}  // namespace resched::server::testing
