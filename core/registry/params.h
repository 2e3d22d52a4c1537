// The parameters of a registered algorithm: what each one means, its type and the range it may
// take, and the values a caller passes (by name). In their own header so that code below the
// registry (the server's conversion, the simulator's options) can name them without the
// registry table.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace resched {

// What a parameter's value may be besides its range: any number, a whole number (counts,
// processors, seeds), 0 or 1, or one of named choices (its value is the choice's index).
enum class ParamType { kReal, kInteger, kFlag, kChoice };

struct ParamInfo {
  std::string name;
  std::string description;
  double default_value = 0;
  double min = 0;
  double max = 0;
  ParamType type = ParamType::kReal;
  std::vector<std::string> choices;  // kChoice: the names, value i naming choices[i]
};

// What a caller passes: the wire's form, checked and turned into each algorithm's typed options
// by the registry (core/registry/param_binding.h).
using AlgorithmParams = std::map<std::string, double>;

}  // namespace resched
