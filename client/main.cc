// resched: the command-line client of resched-server.
#include <cstdlib>
#include <iostream>

#include "client/cli.h"
#include "client/connection.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const char* env = std::getenv("RESCHED_SERVER");
  std::string default_server = env != nullptr && *env != '\0' ? env : "127.0.0.1:50051";
  return resched::cli::RunCli(args, resched::cli::OpenChannel, default_server, std::cout,
                              std::cerr);
}
