// A fresh directory under the test's temporary directory, removed with everything in it when the
// object goes: for data directories, logs and files a test writes.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace resched::testing {

class TempDir {
 public:
  // `prefix` starts the directory's name, so that a leftover one says which test made it.
  explicit TempDir(std::string_view prefix = "resched") {
    std::string pattern = ::testing::TempDir();
    if (pattern.empty() || pattern.back() != '/') pattern += '/';
    pattern.append(prefix).append("-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror(pattern.c_str());
      std::abort();  // nothing a test does makes sense without its directory
    }
    path_ = std::move(pattern);
  }
  ~TempDir() {
    std::error_code ignored;  // a test that already removed it, or a file still open
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // The path of `name` inside the directory.
  std::string operator/(std::string_view name) const {
    return std::string(path_).append("/").append(name);
  }

 private:
  std::string path_;
};

}  // namespace resched::testing
