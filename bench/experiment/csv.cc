#include "bench/experiment/csv.h"

#include <cstdio>
#include <cstdlib>

namespace resched::experiment {
namespace {

std::string Quote(const std::string& cell) {
  if (cell.find_first_of(",\"\n") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

CsvWriter::CsvWriter(std::ostream& out, const std::vector<std::string>& header)
    : out_(out), columns_(header.size()) {
  Row(header);
}

void CsvWriter::Row(const std::vector<std::string>& cells) {
  if (cells.size() != columns_) {
    // A malformed table is a programming error in the experiment, not an input error.
    std::fprintf(stderr, "csv: row of %zu cells in a table of %zu columns\n", cells.size(),
                 columns_);
    std::abort();
  }
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out_ << ',';
    out_ << Quote(cells[i]);
  }
  out_ << '\n';
}

}  // namespace resched::experiment
