// The web view on a free loopback port, serving the in-process service of ServerTest, and a
// plain HTTP client of it.
#pragma once

#include <google/protobuf/util/json_util.h>
#include <httplib.h>

#include <chrono>
#include <memory>
#include <string>

#include "server/web/http_view.h"
#include "tests/server/server_fixture.h"

namespace resched::server::web::testing {

namespace pb = ::resched::v1;

// A Pegasus DAX workflow of three tasks, one before the other two, for the what-if tests.
inline constexpr char kThreeTaskDax[] = R"(<?xml version="1.0"?>
<adag xmlns="http://pegasus.isi.edu/schema/DAX" version="2.1" name="w">
  <job id="ID0" name="prep" runtime="600"/>
  <job id="ID1" name="left" runtime="3600"/>
  <job id="ID2" name="right" runtime="1800"/>
  <child ref="ID1"><parent ref="ID0"/></child>
  <child ref="ID2"><parent ref="ID0"/></child>
</adag>)";

class HttpViewTest : public resched::server::testing::ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    auto view = HttpView::Start(ViewOptions("127.0.0.1:0"));
    ASSERT_OK(view);
    view_ = *std::move(view);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", view_->port());
  }
  void TearDown() override {
    view_.reset();
    ServerTest::TearDown();
  }

  HttpView::Options ViewOptions(const std::string& address) {
    HttpView::Options options;
    options.address = address;
    options.channel = server_->InProcessChannel({});
    options.watches = &service_->watches();
    options.metrics = app_->MetricsCollectables();
    return options;
  }

  // Replaces the view with one started with `options`; client_ then speaks to it.
  void RestartView(HttpView::Options options) {
    view_.reset();
    auto view = HttpView::Start(std::move(options));
    ASSERT_OK(view);
    view_ = *std::move(view);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", view_->port());
  }

  // Replaces the view with one whose event streams send a heartbeat this often.
  void RestartViewWithHeartbeat(std::chrono::milliseconds heartbeat) {
    HttpView::Options options = ViewOptions("127.0.0.1:0");
    options.event_heartbeat = heartbeat;
    RestartView(std::move(options));
  }

  // The body of a GET that must answer `status`.
  std::string Get(const std::string& path, int status = 200) {
    httplib::Result result = client_->Get(path.c_str());
    EXPECT_TRUE(result) << path;
    if (!result) return "";
    EXPECT_EQ(result->status, status) << path << ": " << result->body;
    return result->body;
  }

  template <class Message>
  static Message Parse(const std::string& json) {
    Message message;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &message).ok()) << json;
    return message;
  }

  std::unique_ptr<HttpView> view_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace resched::server::web::testing
