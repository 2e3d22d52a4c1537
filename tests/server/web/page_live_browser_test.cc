// The page kept live by events, in headless Chromium: changes reach it through the event stream
// without a fetch of the schedule, on the rows GetSchedule gives, and it says in plain words
// when what it shows is not live (a missing or deleted cluster, a server gone). Screenshots are
// kept next to the test binary (web-view-*.png).
#include <iostream>
#include <map>
#include <random>

#include "tests/server/web/page_fixture.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;

class PageLiveTest : public testing::BrowserPageTest {
 protected:
  nlohmann::json Run(const std::string& script, const nlohmann::json& args = {}) {
    auto result = browser_->Run(script, args.is_null() ? nlohmann::json::array() : args);
    EXPECT_OK(result);
    return result.ok() ? *result : nlohmann::json();
  }

  // The status line: its words and its state (live, stale, gone, missing, ...).
  std::pair<std::string, std::string> Status() {
    const nlohmann::json status = Run(
        "const s = document.getElementById('status'); return [s.textContent, s.dataset.state];");
    return {status[0].get<std::string>(), status[1].get<std::string>()};
  }

  // The processor ids of every job the page holds.
  std::map<std::string, std::vector<int>> PageRows() {
    const nlohmann::json rows =
        Run("return [...reschedLive.jobs.values()].map(j => [j.id, j.state,"
            "  j.allocation.processorIds || []]);");
    std::map<std::string, std::vector<int>> out;
    for (const auto& row : rows) out[row[0]] = row[2].get<std::vector<int>>();
    return out;
  }
};

// Submissions and cancellations reach the page as events: it fetches no schedule for them, and
// draws every job on the rows GetSchedule gives it.
TEST_F(PageLiveTest, EventsChangeThePageWithoutAFetchOnGetSchedulesRows) {
  CreateSim("sim", 64, "conservative");
  std::mt19937 rng(3);
  std::vector<std::string> ids;
  auto submit = [&]() {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("sim", Rigid(1 + static_cast<int>(rng() % 16), 60 + rng() % 600), &submitted));
    ids.push_back(submitted.job().id());
  };
  for (int i = 0; i < 40; ++i) submit();
  ASSERT_OK(browser_->Navigate(PageUrl("sim")));
  ASSERT_OK(
      browser_->WaitFor("return reschedLive.state === 'live' && reschedLive.jobs.size === 40 && "
                        "window.reschedBars.length > 0;"));
  const nlohmann::json fetched = Run("return reschedLive.counts.scheduleFetches;");

  for (int i = 0; i < 30; ++i) {
    if (i % 4 == 3) {
      (void)Cancel("sim", ids[rng() % ids.size()]);  // one cancelled already is refused: fine
    } else {
      submit();
    }
  }
  const pb::Schedule schedule = Schedule("sim");
  ExpectValid(schedule);
  std::map<std::string, std::vector<int>> expected;
  for (const pb::Job& job : schedule.jobs()) {
    expected[job.id()] = {job.allocation().processor_ids().begin(),
                          job.allocation().processor_ids().end()};
  }
  ASSERT_OK(browser_->WaitFor(
      "return reschedLive.jobs.size === " + std::to_string(expected.size()) + ";"));
  // The events of the last change may still be on their way: wait until the rows agree.
  for (int tries = 0; tries < 100 && PageRows() != expected; ++tries) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_EQ(PageRows(), expected);
  EXPECT_EQ(Run("return reschedLive.counts.scheduleFetches;"), fetched)
      << "the page fetched the schedule for changes its events carried";
  EXPECT_GE(Run("return reschedLive.counts.events;").get<int>(), 30);
  // Jobs sit on consecutive rows where they can: few bars each (one per run of rows).
  const nlohmann::json bars =
      Run("const n = new Map(); for (const b of reschedBars) n.set(b.id, (n.get(b.id) || 0) + 1);"
          "return [[...n.values()].reduce((a, c) => a + c, 0) / n.size,"
          "        [...n.values()].filter(c => c === 1).length / n.size];");
  std::cout << "bars per job " << bars[0] << ", jobs of one bar " << bars[1] << "\n";
  EXPECT_LT(bars[0].get<double>(), 2.5);
  KeepScreenshot("web-view-live.png");
}

TEST_F(PageLiveTest, APageSaysWhenWhatItShowsIsNotLive) {
  constexpr char kChartHidden[] =
      "return document.getElementById('gantt').closest('figure').hidden === true;";
  CreateSim("sim", 8, "conservative");
  pb::SubmitJobResponse submitted;
  ASSERT_OK(Submit("sim", Rigid(4, 100), &submitted));

  // A link to a cluster that is not there: said so, nothing of another cluster drawn.
  ASSERT_OK(browser_->Navigate(PageUrl("nosuch")));
  ASSERT_OK(
      browser_->WaitFor("return document.getElementById('status').dataset.state === 'missing';"));
  EXPECT_EQ(Status().first, "no cluster named 'nosuch'");
  // The chart is hidden at the next frame the page draws, which may come after the status.
  EXPECT_OK(browser_->WaitFor(kChartHidden));
  EXPECT_EQ(Run("return document.getElementById('cluster-name').textContent;"), "nosuch");

  // The server's web view goes away: the page says it is not live, and is again once it is
  // back on the same address.
  ASSERT_OK(browser_->Navigate(PageUrl("sim")));
  ASSERT_OK(browser_->WaitFor("return reschedLive.state === 'live' && reschedBars.length > 0;"));
  const int port = view_->port();
  view_.reset();
  ASSERT_OK(browser_->WaitFor("return reschedLive.state === 'stale';"));
  EXPECT_THAT(Status().first, ::testing::HasSubstr("not live"));
  EXPECT_EQ(Run("return document.body.dataset.live;"), "stale");
  KeepScreenshot("web-view-not-live.png");
  RestartView(ViewOptions("127.0.0.1:" + std::to_string(port)));
  ASSERT_OK(browser_->WaitFor("return reschedLive.state === 'live';", absl::Seconds(30)));
  EXPECT_EQ(Status(), std::make_pair(std::string("live"), std::string("live")));

  // The cluster is deleted while shown: its chart goes, the status says so.
  pb::DeleteClusterRequest request;
  request.set_name("sim");
  request.set_force(true);
  pb::DeleteClusterResponse response;
  grpc::ClientContext context;
  ASSERT_OK(stub_->DeleteCluster(&context, request, &response));
  ASSERT_OK(browser_->WaitFor("return reschedLive.state === 'gone';"));
  EXPECT_EQ(Status().first, "cluster 'sim' was deleted");
  EXPECT_OK(browser_->WaitFor(kChartHidden));
}

// A page left for another keeps no stream open (pagehide), so that going back and forth many
// times never runs the browser out of connections to the server.
TEST_F(PageLiveTest, NavigatingAwayAndBackManyTimesKeepsThePageLive) {
  CreateSim("sim", 8, "conservative");
  pb::SubmitJobResponse submitted;
  ASSERT_OK(Submit("sim", Rigid(4, 100), &submitted));
  const std::string elsewhere = "http://127.0.0.1:" + std::to_string(view_->port()) + "/metrics";
  for (int i = 0; i < 10; ++i) {
    ASSERT_OK(browser_->Navigate(PageUrl("sim")));
    ASSERT_OK(browser_->WaitFor("return reschedLive.state === 'live';", absl::Seconds(20)))
        << "navigation " << i;
    ASSERT_OK(browser_->Navigate(elsewhere));
  }
}

}  // namespace
}  // namespace resched::server::web
