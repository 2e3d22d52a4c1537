// CSV output for experiment tables (RFC 4180 quoting).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace resched::experiment {

class CsvWriter {
 public:
  CsvWriter(std::ostream& out, const std::vector<std::string>& header);
  void Row(const std::vector<std::string>& cells);

 private:
  std::ostream& out_;
  size_t columns_;
};

}  // namespace resched::experiment
