#include "tests/testing/browser.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "tests/testing/free_port.h"

extern char** environ;

namespace resched::testing {

namespace {

// Starts chromedriver on `port`; FAILED_PRECONDITION when it is not installed.
absl::StatusOr<pid_t> SpawnDriver(int port) {
  std::string port_flag = absl::StrCat("--port=", port);
  std::string driver_name = "chromedriver";
  char* argv[] = {driver_name.data(), port_flag.data(), nullptr};
  pid_t pid = 0;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  const int spawned = posix_spawnp(&pid, "chromedriver", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return absl::FailedPreconditionError(
        "chromedriver is not installed: scripts/install-deps.sh --browser installs Debian's "
        "chromium and chromium-driver");
  }
  return pid;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Browser>> Browser::Start() {
  // The port is free when chosen but may be taken before the driver binds it (another test's
  // server): the driver then exits, and the next attempt takes another port.
  constexpr int kAttempts = 3;
  std::unique_ptr<Browser> browser;
  for (int attempt = 0; attempt < kAttempts && browser == nullptr; ++attempt) {
    const int port = FreeLoopbackPort();
    if (port == 0) return absl::UnavailableError("no free loopback port for chromedriver");
    absl::StatusOr<pid_t> pid = SpawnDriver(port);
    if (!pid.ok()) return pid.status();
    std::unique_ptr<Browser> started(new Browser(*pid, port));
    // The driver answers /status once it listens.
    bool ready = false;
    bool exited = false;
    for (int i = 0; i < 250 && !ready && !exited; ++i) {
      // Ours must still run: an answer could come from another test's driver on that port.
      exited = waitpid(*pid, nullptr, WNOHANG) == *pid;
      if (exited) break;
      httplib::Result status = started->client_->Get("/status");
      ready = status && status->status == 200;
      if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (exited) {
      started->driver_ = -1;  // reaped: nothing for the destructor to stop
      continue;
    }
    if (!ready) return absl::UnavailableError("chromedriver did not start within 5 s");
    browser = std::move(started);
  }
  if (browser == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("chromedriver exited at start ", kAttempts, " times (its port was taken)"));
  }
  // Root in a container has no sandbox to drop into; /dev/shm may be small there.
  nlohmann::json capabilities = {
      {"capabilities",
       {{"alwaysMatch",
         {{"browserName", "chrome"},
          {"goog:chromeOptions",
           {{"args",
             {"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,1000", "--force-device-scale-factor=1"}}}}}}}}};
  absl::StatusOr<nlohmann::json> session = browser->Call("POST", "/session", capabilities);
  if (!session.ok()) return session.status();
  browser->session_ = (*session)["sessionId"].get<std::string>();
  return browser;
}

Browser::Browser(pid_t driver, int port)
    : driver_(driver), client_(std::make_unique<httplib::Client>("127.0.0.1", port)) {
  client_->set_read_timeout(60, 0);
}

Browser::~Browser() {
  if (!session_.empty()) (void)Call("DELETE", absl::StrCat("/session/", session_));
  if (driver_ > 0) {
    kill(driver_, SIGTERM);
    waitpid(driver_, nullptr, 0);
  }
}

absl::StatusOr<nlohmann::json> Browser::Call(const std::string& method, const std::string& path,
                                             const nlohmann::json& body) {
  httplib::Result result = method == "GET" ? client_->Get(path.c_str())
                           : method == "DELETE"
                               ? client_->Delete(path.c_str())
                               : client_->Post(path.c_str(), body.dump(), "application/json");
  if (!result) return absl::UnavailableError(absl::StrCat("chromedriver: no answer to ", path));
  nlohmann::json answer = nlohmann::json::parse(result->body, nullptr, false);
  if (answer.is_discarded() || !answer.contains("value")) {
    return absl::InternalError(absl::StrCat("chromedriver: ", path, ": ", result->body));
  }
  if (result->status != 200) {
    return absl::InternalError(absl::StrCat("chromedriver: ", path, ": ", answer["value"].dump()));
  }
  return answer["value"];
}

absl::Status Browser::Navigate(const std::string& url) {
  return Call("POST", absl::StrCat("/session/", session_, "/url"), {{"url", url}}).status();
}

absl::StatusOr<nlohmann::json> Browser::Run(const std::string& script, const nlohmann::json& args) {
  return Call("POST", absl::StrCat("/session/", session_, "/execute/sync"),
              {{"script", script}, {"args", args}});
}

absl::Status Browser::WaitFor(const std::string& script, absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  nlohmann::json last;
  while (absl::Now() < until) {
    absl::StatusOr<nlohmann::json> value = Run(script);
    if (!value.ok()) return value.status();
    if (*value == true) return absl::OkStatus();
    last = *value;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError(absl::StrCat("the page did not reach `", script, "` in ",
                                                  absl::FormatDuration(timeout),
                                                  " (last: ", last.dump(), ")"));
}

absl::StatusOr<std::string> Browser::Screenshot() {
  absl::StatusOr<nlohmann::json> image =
      Call("GET", absl::StrCat("/session/", session_, "/screenshot"));
  if (!image.ok()) return image.status();
  std::string png;
  if (!absl::Base64Unescape(image->get<std::string>(), &png)) {
    return absl::InternalError("chromedriver: the screenshot is not base64");
  }
  return png;
}

}  // namespace resched::testing
