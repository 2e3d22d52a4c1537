#include "transport/bearer_token.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/support/client_interceptor.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "transport/metadata_value.h"

namespace resched::transport {
namespace {

class BearerTokenInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit BearerTokenInterceptor(std::string header) : header_(std::move(header)) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace("authorization", header_);
    }
    methods->Proceed();
  }

 private:
  const std::string header_;  // a copy: a call may outlive the channel and its factory
};

class BearerTokenInterceptorFactory : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit BearerTokenInterceptorFactory(const std::string& token)
      : header_(absl::StrCat("Bearer ", token)) {}

  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* /*info*/) override {
    return new BearerTokenInterceptor(header_);
  }

 private:
  std::string header_;
};

}  // namespace

std::shared_ptr<grpc::Channel> CreateChannelWithToken(
    const std::string& target, const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const grpc::ChannelArguments& arguments, const std::string& token) {
  if (token.empty()) return grpc::CreateCustomChannel(target, credentials, arguments);
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> factories;
  factories.push_back(std::make_unique<BearerTokenInterceptorFactory>(token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(target, credentials, arguments,
                                                                 std::move(factories));
}

absl::StatusOr<std::string> TokenFromEnvironment() {
  const char* env = std::getenv("RESCHED_TOKEN");
  if (env == nullptr) return std::string();
  std::string token(absl::StripAsciiWhitespace(env));
  if (absl::Status legal = CheckMetadataValue("RESCHED_TOKEN", absl::StrCat("Bearer ", token));
      !legal.ok()) {
    return legal;
  }
  return token;
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& flag, const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(flag, ": cannot read '", path, "'"));
  std::ostringstream text;
  text << in.rdbuf();
  const std::string token(absl::StripAsciiWhitespace(text.str()));
  if (token.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": '", path, "' holds no token"));
  }
  if (absl::Status legal = CheckMetadataValue(absl::StrCat(flag, ": the token in '", path, "'"),
                                              absl::StrCat("Bearer ", token));
      !legal.ok()) {
    return legal;
  }
  return token;
}

}  // namespace resched::transport
