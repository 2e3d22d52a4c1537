// resched-loadgen: load for a running resched-server (options.h; docs/observability.md shows a
// run). Exit status 0 when the run completed (errors are counted, not fatal), 1 when the server
// could not be used, 2 for bad flags.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "loadgen/options.h"
#include "loadgen/report.h"
#include "loadgen/runner.h"
#include "loadgen/swf_replay.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::fputs(resched::loadgen::kUsage, stdout);
      return 0;
    }
  }
  absl::StatusOr<resched::loadgen::Options> options = resched::loadgen::ParseOptions(args);
  if (!options.ok()) {
    std::fprintf(stderr, "resched-loadgen: %s\n%s", std::string(options.status().message()).c_str(),
                 resched::loadgen::kUsage);
    return 2;
  }
  absl::StatusOr<resched::loadgen::RunResult> result =
      options->swf.empty() ? resched::loadgen::Run(*options, std::cerr)
                           : resched::loadgen::ReplaySwf(*options, std::cerr);
  if (!result.ok()) {
    std::fprintf(stderr, "resched-loadgen: %s\n", std::string(result.status().message()).c_str());
    return 1;
  }
  std::cout << (options->json ? resched::loadgen::JsonReport(*options, *result)
                              : resched::loadgen::TextReport(*options, *result));
  return 0;
}
