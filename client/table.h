// Plain-text tables and key/value blocks for the human output.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace resched::cli {

// Columns separated by two spaces, padded to the widest cell (UTF-8 aware); a column whose
// header starts with '>' is right-aligned (the '>' is not printed). No trailing spaces.
class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  void AddRow(std::vector<std::string> cells);  // missing cells are empty
  size_t rows() const { return rows_.size(); }
  std::string Render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// "key:   value" lines with the values aligned.
std::string RenderKeyValues(const std::vector<std::pair<std::string, std::string>>& pairs);

// Display width of UTF-8 text, counting one column per code point.
size_t DisplayWidth(const std::string& s);

}  // namespace resched::cli
