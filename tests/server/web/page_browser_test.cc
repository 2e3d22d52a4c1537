// The web view's page in headless Chromium (tests/testing/browser.h) against the service: the
// Gantt chart draws the schedule GetSchedule answers, and follows the cluster's clock through
// its event stream without reloading. The screenshots are kept next to the test binary
// (web-view-*.png) as artifacts.
#include <map>

#include "tests/server/web/page_fixture.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;
using testing::kThreeTaskDax;

class PageTest : public testing::BrowserPageTest {
 protected:
  // The bars the page drew, by job, reservation or DAG task id: how many processors they cover,
  // and of which kind.
  std::map<std::string, std::pair<int, std::string>> Bars() {
    auto bars = browser_->Run("return window.reschedBars.map(b => [b.id, b.kind, b.count]);");
    EXPECT_OK(bars);
    std::map<std::string, std::pair<int, std::string>> out;
    if (!bars.ok()) return out;
    for (const auto& bar : *bars) {
      auto& [count, kind] = out[bar[0].get<std::string>()];
      count += bar[2].get<int>();
      kind = bar[1].get<std::string>();
    }
    return out;
  }

  // Clicks (or wheels, with `wheel_delta`) the middle of the first bar of `id`, as a mouse
  // would; returns the detail panel's text.
  std::string PointAt(const std::string& id, int wheel_delta = 0) {
    auto text = browser_->Run(
        "const canvas = document.getElementById('gantt');"
        "const box = canvas.getBoundingClientRect();"
        "const b = window.reschedBars.find(b => b.id === arguments[0]);"
        "const at = {clientX: box.left + (b.x + b.width / 2) * box.width / canvas.width,"
        "            clientY: box.top + (b.y + b.height / 2) * box.height / canvas.height,"
        "            bubbles: true, cancelable: true};"
        "canvas.dispatchEvent(arguments[1] ? new WheelEvent('wheel', {...at, deltaY: arguments[1]})"
        "                                  : new MouseEvent('click', at));"
        "return document.getElementById('detail').innerText;",
        {id, wheel_delta});
    EXPECT_OK(text);
    return text.ok() ? text->get<std::string>() : "";
  }
  double WidthOf(const std::string& id) {
    auto width =
        browser_->Run("return window.reschedBars.find(b => b.id === arguments[0]).width;", {id});
    EXPECT_OK(width);
    return width.ok() ? width->get<double>() : 0;
  }
};

TEST_F(PageTest, TheGanttDrawsTheScheduleAndFollowsTheClockWithoutReloading) {
  CreateSim("sim", 16, "conservative");
  pb::SubmitJobResponse wide_running, whole, narrow;
  ASSERT_OK(Submit("sim", Rigid(8, 100), &wide_running));  // [0, 100) on 8
  ASSERT_OK(Submit("sim", Rigid(16, 50), &whole));         // waits for it: [100, 150)
  ASSERT_OK(Submit("sim", Rigid(4, 60), &narrow));         // backfilled: [0, 60)
  pb::AddReservationRequest hold;
  hold.set_cluster("sim");
  hold.set_processors(2);
  hold.mutable_start()->set_seconds(200);
  hold.mutable_end()->set_seconds(300);
  pb::Reservation reservation;
  grpc::ClientContext context;
  ASSERT_OK(stub_->AddReservation(&context, hold, &reservation));
  const pb::Schedule schedule = Schedule("sim");
  ExpectValid(schedule);

  ASSERT_OK(browser_->Navigate(PageUrl("sim")));
  ASSERT_OK(browser_->WaitFor(
      "return window.reschedBars.reduce((n, b) => n + b.count, 0) === 8 + 16 + 4 + 2;"));
  // One bar per processor of each allocation, of the kind its state gives.
  auto bars = Bars();
  EXPECT_EQ(bars[wide_running.job().id()], std::make_pair(8, std::string("running")));
  EXPECT_EQ(bars[whole.job().id()], std::make_pair(16, std::string("queued")));
  EXPECT_EQ(bars[narrow.job().id()], std::make_pair(4, std::string("running")));
  EXPECT_EQ(bars[reservation.id()], std::make_pair(2, std::string("reserved")));
  // Time runs left to right: the queued job starts where the first one ends.
  auto edges = browser_->Run(
      "const of = (id) => window.reschedBars.filter(b => b.id === id);"
      "return [of(arguments[0])[0].x + of(arguments[0])[0].width, of(arguments[1])[0].x,"
      "        of(arguments[2])[0].x];",
      {wide_running.job().id(), whole.job().id(), reservation.id()});
  ASSERT_OK(edges);
  EXPECT_NEAR((*edges)[0].get<double>(), (*edges)[1].get<double>(), 1.0);
  EXPECT_GT((*edges)[2].get<double>(), (*edges)[1].get<double>());
  // The table lists the same jobs.
  ASSERT_OK(browser_->WaitFor("return document.querySelectorAll('#jobs tbody tr').length === 3;"));
  // A header sorts by its column; the same header again reverses the order.
  auto order = browser_->Run(
      "const button = document.querySelector('#jobs th button[data-sort=\"id\"]');"
      "const ids = () => [...document.querySelectorAll('#jobs tbody tr')].map(r => r.dataset.job);"
      "button.click(); const up = ids(); button.click();"
      "return [up, ids(), button.parentElement.getAttribute('aria-sort')];");
  ASSERT_OK(order);
  EXPECT_EQ((*order)[0],
            nlohmann::json({wide_running.job().id(), whole.job().id(), narrow.job().id()}));
  EXPECT_EQ((*order)[1],
            nlohmann::json({narrow.job().id(), whole.job().id(), wide_running.job().id()}));
  EXPECT_EQ((*order)[2], "descending");
  KeepScreenshot("web-view-before.png");

  // A click on a bar opens its details; the wheel zooms around the pointer, 0 fits again.
  const std::string detail = PointAt(whole.job().id());
  EXPECT_THAT(detail, ::testing::HasSubstr("Job " + whole.job().id()));
  EXPECT_THAT(detail, ::testing::HasSubstr("QUEUED"));
  EXPECT_THAT(detail, ::testing::HasSubstr("Stretch so far"));
  const double fitted = WidthOf(whole.job().id());
  PointAt(whole.job().id(), -100);
  EXPECT_GT(WidthOf(whole.job().id()), fitted * 1.1);
  ASSERT_OK(
      browser_->Run("document.getElementById('gantt').dispatchEvent("
                    "new KeyboardEvent('keydown', {key: '0'})); return true;"));
  EXPECT_NEAR(WidthOf(whole.job().id()), fitted, 0.5);

  // The clock moves by RPC; the page follows through its event stream, without reloading.
  ASSERT_OK(browser_->Run("window.reschedMarker = 42; return true;"));
  pb::AdvanceClockResponse advanced;
  ASSERT_OK(AdvanceBy("sim", 100, &advanced));
  ASSERT_OK(browser_->WaitFor("return window.reschedBars.some(b => b.id === '" + whole.job().id() +
                              "' && b.kind === 'running');"));
  bars = Bars();
  EXPECT_EQ(bars[wide_running.job().id()].second, "ended");
  EXPECT_EQ(bars[narrow.job().id()].second, "ended");
  auto marker = browser_->Run("return window.reschedMarker;");
  ASSERT_OK(marker);
  EXPECT_EQ(*marker, 42) << "the page reloaded";
  KeepScreenshot("web-view-after.png");
}

// A large cluster's table shows a page of jobs at a time: every job is reachable with Next, in the
// chosen order, and Find narrows the list to the jobs whose id or state holds the text.
TEST_F(PageTest, TheJobTablePagesThroughALargeClusterAndFindsAJob) {
  CreateSim("big", 4, "fcfs");
  std::vector<std::string> ids;
  for (int i = 0; i < 1'100; ++i) {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("big", Rigid(1, 60), &submitted));
    ids.push_back(submitted.job().id());
  }
  ExpectValid(Schedule("big"));
  ASSERT_OK(browser_->Navigate(PageUrl("big")));
  ASSERT_OK(browser_->WaitFor("return document.querySelectorAll('#jobs tbody tr').length > 0;"));
  // Runs `action`, then returns the rows' ids, the line saying which, and whether Previous and
  // Next are disabled.
  auto page = [&](const std::string& action, const std::string& argument = "") {
    auto shown = browser_->Run(
        action +
            "return [[...document.querySelectorAll('#jobs tbody tr')].map(r => r.dataset.job),"
            "        document.getElementById('jobs-shown').textContent,"
            "        document.getElementById('jobs-previous').disabled,"
            "        document.getElementById('jobs-next').disabled];",
        {argument});
    EXPECT_OK(shown);
    return shown.ok() ? *shown : nlohmann::json();
  };
  // By id (FCFS on 4 processors starts them in submission order, so by start too); ids read
  // as numbers, j2 before j10, as the job ids were handed out.
  nlohmann::json shown =
      page("document.querySelector('#jobs th button[data-sort=\"id\"]').click();");
  std::vector<std::string> seen = shown[0].get<std::vector<std::string>>();
  EXPECT_EQ(seen.size(), 500u);
  EXPECT_EQ(shown[1], "Jobs 1-500 of 1100.");
  EXPECT_EQ(shown[2], true);  // no previous page
  EXPECT_EQ(shown[3], false);
  shown = page("document.getElementById('jobs-next').click();");
  EXPECT_EQ(shown[1], "Jobs 501-1000 of 1100.");
  for (const auto& id : shown[0]) seen.push_back(id.get<std::string>());
  shown = page("document.getElementById('jobs-next').click();");
  EXPECT_EQ(shown[1], "Jobs 1001-1100 of 1100.");
  EXPECT_EQ(shown[3], true);  // no next page
  for (const auto& id : shown[0]) seen.push_back(id.get<std::string>());
  EXPECT_EQ(seen, ids);  // every job once, in order
  shown = page("document.getElementById('jobs-previous').click();");
  EXPECT_EQ(shown[1], "Jobs 501-1000 of 1100.");
  ASSERT_OK(browser_->Run("document.getElementById('jobs-nav').scrollIntoView(); return true;"));
  KeepScreenshot("web-view-table.png");

  // Find starts again from the first page of what matches.
  shown = page(
      "const find = document.getElementById('find');"
      "find.value = arguments[0]; find.dispatchEvent(new Event('input'));",
      ids[1'041]);
  EXPECT_EQ(shown[0], nlohmann::json({ids[1'041]}));
  EXPECT_EQ(shown[1], "Jobs 1-1 of 1 matching (1100 in all).");
  EXPECT_EQ(shown[2], true);
  EXPECT_EQ(shown[3], true);
  shown = page(
      "const find = document.getElementById('find');"
      "find.value = 'no such job'; find.dispatchEvent(new Event('input'));");
  EXPECT_EQ(shown[0], nlohmann::json::array());
  EXPECT_EQ(shown[1], "No job matches.");
}

TEST_F(PageTest, DagTasksAreDrawnWithTheirPrecedences) {
  CreateSim("sim", 8, "conservative");
  pb::ReserveDAGRequest request;
  request.set_cluster("sim");
  for (const char* name : {"a", "b", "c"}) {
    pb::DagTask* task = request.mutable_dag()->add_tasks();
    task->set_name(name);
    task->mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(3600);
    task->mutable_model()->mutable_amdahl()->set_alpha(0.1);
  }
  for (const auto& [from, to] : {std::pair{"a", "b"}, std::pair{"a", "c"}}) {
    pb::DagEdge* edge = request.mutable_dag()->add_edges();
    edge->set_from(from);
    edge->set_to(to);
  }
  request.mutable_algorithm()->set_name("heft");
  pb::ReserveDAGResponse reserved;
  grpc::ClientContext context;
  ASSERT_OK(stub_->ReserveDAG(&context, request, &reserved));
  const pb::Schedule schedule = Schedule("sim");
  ExpectValid(schedule);
  ASSERT_EQ(schedule.dag_tasks_size(), 3);

  ASSERT_OK(browser_->Navigate(PageUrl("sim")));
  ASSERT_OK(browser_->WaitFor("return window.reschedBars.some(b => b.kind === 'dag');"));
  auto bars = Bars();
  for (const pb::DagTaskSlot& slot : schedule.dag_tasks()) {
    EXPECT_EQ(bars[slot.dag_id() + "/" + slot.task()],
              std::make_pair(slot.allocation().processors(), std::string("dag")));
  }
  const std::string dag = schedule.dag_tasks(0).dag_id();
  const std::string detail = PointAt(dag + "/a");
  EXPECT_THAT(detail, ::testing::HasSubstr("DAG " + dag + ", task a"));
  EXPECT_THAT(detail, ::testing::HasSubstr("b, c"));  // its successors
  KeepScreenshot("web-view-dag.png");
}

TEST_F(PageTest, AnUploadedDaxAndAJobFormAreDrawnAsDryRunsOverTheSchedule) {
  CreateSim("sim", 8, "conservative");
  pb::SubmitJobResponse running;
  ASSERT_OK(Submit("sim", Rigid(6, 1000), &running));
  ASSERT_OK(browser_->Navigate(PageUrl("sim")));
  ASSERT_OK(
      browser_->WaitFor("return window.reschedBars.length > 0 && "
                        "document.querySelector('#what-if-dag select').options.length > 0;"));
  // The file input gets the file as a user's choice would give it, then the form is sent.
  ASSERT_OK(
      browser_->Run("document.getElementById('what-if').open = true;"
                    "const form = document.getElementById('what-if-dag');"
                    "const files = new DataTransfer();"
                    "files.items.add(new File([arguments[0]], 'w.dax', {type: 'application/xml'}));"
                    "form.file.files = files.files;"
                    "form.algorithm.value = 'heft';"
                    "form.requestSubmit(); return true;",
                    {kThreeTaskDax}));
  ASSERT_OK(browser_->WaitFor(
      "return window.reschedBars.filter(b => b.kind === 'whatif').length === 3;"));
  auto result = browser_->Run("return document.getElementById('what-if-result').textContent;");
  ASSERT_OK(result);
  EXPECT_THAT(result->get<std::string>(), ::testing::HasSubstr("Feasible: 3 task(s)"));
  EXPECT_THAT(result->get<std::string>(), ::testing::HasSubstr("The tightest deadline"));
  KeepScreenshot("web-view-what-if.png");
  // Nothing was committed.
  EXPECT_EQ(Schedule("sim").dag_tasks_size(), 0);

  ASSERT_OK(
      browser_->Run("const form = document.getElementById('what-if-job');"
                    "form.k.value = '4'; form.seconds.value = '300';"
                    "form.requestSubmit(); return true;"));
  ASSERT_OK(
      browser_->WaitFor("return window.reschedBars.filter(b => b.kind === 'whatif')"
                        "    .map(b => b.count).join() === '4';"));
  EXPECT_EQ(Schedule("sim").jobs_size(), 1);
}

}  // namespace
}  // namespace resched::server::web
