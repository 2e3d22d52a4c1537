// The parameters of a registered algorithm: what each one means and the range it may take, and
// the values a caller passes (by name). In their own header so that code below the registry
// (the server's conversion, the simulator's options) can name them without the registry table.
#pragma once

#include <map>
#include <string>

namespace resched {

struct ParamInfo {
  std::string name;
  std::string description;
  double default_value = 0;
  double min = 0;
  double max = 0;
};

using AlgorithmParams = std::map<std::string, double>;

}  // namespace resched
