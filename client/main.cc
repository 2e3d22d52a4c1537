// resched: the command-line client of resched-server.
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <cstdlib>
#include <iostream>

#include "client/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const char* env = std::getenv("RESCHED_SERVER");
  std::string default_server = env != nullptr && *env != '\0' ? env : "127.0.0.1:50051";
  auto make_stub = [](const std::string& server) {
    return resched::v1::Resched::NewStub(
        grpc::CreateChannel(server, grpc::InsecureChannelCredentials()));
  };
  return resched::cli::RunCli(args, make_stub, default_server, std::cout, std::cerr);
}
