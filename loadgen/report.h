// resched-loadgen's final report: a table per call kind, or JSON for scripts.
#pragma once

#include <string>

#include "loadgen/options.h"
#include "loadgen/runner.h"

namespace resched::loadgen {

std::string TextReport(const Options& options, const RunResult& result);
std::string JsonReport(const Options& options, const RunResult& result);

}  // namespace resched::loadgen
