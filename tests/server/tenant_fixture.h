// Helpers for tests of a server with a tokens file: a grant line of the file, and calls made as
// the holder of a token.
#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "server/auth/tokens.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/tokens.h"

namespace resched::server::testing {

// One entry of a tokens file granting `token` to `tenant` with `role` on every cluster.
inline std::string GrantLine(absl::string_view token, absl::string_view tenant,
                             absl::string_view role) {
  return absl::StrCat("  - {sha256: \"", resched::testing::Sha256Hex(token), "\", tenant: ", tenant,
                      ", role: ", role, "}\n");
}

// A call to `method` on `stub` as the holder of `token`.
template <class Request, class Response>
grpc::Status CallAs(pb::Resched::Stub& stub, const char* token,
                    grpc::Status (pb::Resched::Stub::*method)(grpc::ClientContext*, const Request&,
                                                              Response*),
                    const Request& request, Response* response) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", token));
  return (stub.*method)(&context, request, response);
}

// A server whose calls need the tokens of `TokensYaml()`.
class TokenServerFixture : public ServerTest {
 protected:
  virtual std::string TokensYaml() const = 0;
  // What a fixture adds to the service besides the tokens.
  virtual void ConfigureMore(Application&) {}

  void Configure(Application& app) final {
    absl::StatusOr<auth::TokenTable> tokens = auth::TokenTable::Parse(TokensYaml());
    ASSERT_TRUE(tokens.ok()) << tokens.status();
    app.RequireTokens(std::make_shared<const auth::TokenTable>(*std::move(tokens)));
    ConfigureMore(app);
  }

  // A call to `method` as the holder of `token`.
  template <class Request, class Response>
  grpc::Status Call(const char* token,
                    grpc::Status (pb::Resched::Stub::*method)(grpc::ClientContext*, const Request&,
                                                              Response*),
                    const Request& request, Response* response) {
    return CallAs(*stub_, token, method, request, response);
  }

  // A SIMULATED (or WALL) cluster of `processors` under conservative backfilling, created by
  // the holder of the admin token `admin`.
  void CreateClusterAs(const char* admin, const std::string& name, int processors,
                       pb::ClockKind clock = pb::SIMULATED) {
    pb::CreateClusterRequest request;
    request.mutable_spec()->set_name(name);
    request.mutable_spec()->set_processors(processors);
    request.mutable_spec()->set_clock(clock);
    request.mutable_spec()->mutable_policy()->set_name("conservative");
    pb::Cluster cluster;
    ASSERT_OK(Call(admin, &pb::Resched::Stub::CreateCluster, request, &cluster));
  }
};

}  // namespace resched::server::testing
