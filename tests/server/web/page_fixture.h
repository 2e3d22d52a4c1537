// The web view's page in a headless Chromium (tests/testing/browser.h) beside the view of
// HttpViewTest; the browser tests' screenshots are kept next to the test binary.
#pragma once

#include <fstream>
#include <memory>
#include <string>

#include "tests/server/web/web_fixture.h"
#include "tests/testing/browser.h"

namespace resched::server::web::testing {

class BrowserPageTest : public HttpViewTest {
 protected:
  void SetUp() override {
    HttpViewTest::SetUp();
    auto browser = resched::testing::Browser::Start();
    ASSERT_OK(browser);
    browser_ = *std::move(browser);
  }
  void TearDown() override {
    browser_.reset();
    HttpViewTest::TearDown();
  }

  // The page showing `cluster`.
  std::string PageUrl(const std::string& cluster) const {
    return "http://127.0.0.1:" + std::to_string(view_->port()) + "/#" + cluster;
  }

  void KeepScreenshot(const std::string& name) {
    auto png = browser_->Screenshot();
    ASSERT_OK(png);
    ASSERT_EQ(png->substr(0, 8), "\x89PNG\r\n\x1a\n");
    std::ofstream(name, std::ios::binary) << *png;
  }

  std::unique_ptr<resched::testing::Browser> browser_;
};

}  // namespace resched::server::web::testing
