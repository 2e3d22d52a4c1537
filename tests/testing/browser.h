// A headless Chromium driven through chromedriver's WebDriver protocol (W3C), for the web
// view's browser tests and its render benchmark: the page as a browser runs it, its JavaScript,
// canvas and event stream included. Needs Debian's chromium and chromium-driver
// (scripts/install-deps.sh --browser).
#pragma once

#include <httplib.h>
#include <sys/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace resched::testing {

class Browser {
 public:
  // Starts chromedriver on a free loopback port and a headless session in it; FAILED_PRECONDITION
  // saying what to install when chromedriver is missing.
  static absl::StatusOr<std::unique_ptr<Browser>> Start();
  // Ends the session (and its Chromium) and the driver.
  ~Browser();
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  absl::Status Navigate(const std::string& url);
  // Runs `script`, a function body, in the page with `args` as its arguments; its return value.
  absl::StatusOr<nlohmann::json> Run(const std::string& script,
                                     const nlohmann::json& args = nlohmann::json::array());
  // Runs `script` every 20 ms until it returns true; DEADLINE_EXCEEDED after `timeout` (long:
  // the suite runs two tests at a time, the sanitizer builds slowly).
  absl::Status WaitFor(const std::string& script, absl::Duration timeout = absl::Seconds(30));
  // The page as a PNG image.
  absl::StatusOr<std::string> Screenshot();

 private:
  Browser(pid_t driver, int port);
  absl::StatusOr<nlohmann::json> Call(const std::string& method, const std::string& path,
                                      const nlohmann::json& body = nullptr);

  pid_t driver_;  // -1 when there is no process left to stop
  std::unique_ptr<httplib::Client> client_;
  std::string session_;
};

}  // namespace resched::testing
