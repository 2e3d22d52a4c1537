// resched: the command-line client of resched-server.
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <cstdlib>
#include <iostream>

#include "client/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const char* env = std::getenv("RESCHED_SERVER");
  std::string default_server = env != nullptr && *env != '\0' ? env : "127.0.0.1:50051";
  auto make_stub = [](const std::string& server) {
    // Large answers are legitimate: `trace export` reads a cluster's whole retained history.
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(1 << 30);
    return resched::v1::Resched::NewStub(
        grpc::CreateCustomChannel(server, grpc::InsecureChannelCredentials(), arguments));
  };
  return resched::cli::RunCli(args, make_stub, default_server, std::cout, std::cerr);
}
