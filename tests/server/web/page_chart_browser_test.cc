// The page's chart and tables read job by job (headless Chromium, tests/testing/browser.h): a
// 1,024-processor cluster of two processor groups zoomed on processors until its jobs carry
// their labels, its axes, group boundaries and busy strip against GetSchedule; filters by tenant,
// state and text, the holds and DAG tables, a job's details in words, and the exports. The
// screenshots are kept next to the test binary (web-view-*.png).
#include <algorithm>
#include <random>
#include <regex>
#include <set>

#include "absl/strings/str_split.h"
#include "tests/server/tenant_fixture.h"
#include "tests/server/web/page_fixture.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;

class PageChartTest : public testing::BrowserPageTest {
 protected:
  nlohmann::json Run(const std::string& script,
                     const nlohmann::json& args = nlohmann::json::array()) {
    auto result = browser_->Run(script, args);
    EXPECT_OK(result) << script;
    return result.ok() ? *result : nlohmann::json();
  }
  void Key(const std::string& key, int times = 1) {
    for (int i = 0; i < times; ++i) {
      Run("document.getElementById('gantt').dispatchEvent(new KeyboardEvent('keydown', "
          "{key: arguments[0], bubbles: true, cancelable: true})); return true;",
          {key});
    }
  }
  // The texts the last drawing wrote (axes, groups, labels).
  std::set<std::string> Texts() {
    std::set<std::string> texts;
    for (const auto& text :
         Run("return drawnShapes.filter(s => s.text !== undefined).map(s => s.text);")) {
      texts.insert(text.get<std::string>());
    }
    return texts;
  }
  // Sets a filter control's value as a user's choice would.
  void Choose(const std::string& id, const std::string& value) {
    Run("const e = document.getElementById(arguments[0]); e.value = arguments[1];"
        "e.dispatchEvent(new Event(e.tagName === 'INPUT' ? 'input' : 'change')); return true;",
        {id, value});
  }
  std::vector<std::string> TableIds(const std::string& table) {
    // The tables are rebuilt at most twice a second: wait for the filters' to land.
    absl::SleepFor(absl::Milliseconds(600));
    return Run("return [...document.querySelectorAll('#" + table +
               " tbody tr')].map(r => r.cells[0].textContent);")
        .get<std::vector<std::string>>();
  }
  pb::JobSpec Named(pb::JobSpec spec, const std::string& name, const std::string& owner) {
    spec.set_name(name);
    spec.set_owner(owner);
    return spec;
  }
};

TEST_F(PageChartTest, AThousandProcessorsZoomToSingleJobsWithLabelsAxesGroupsAndTheBusyStrip) {
  CreateSimOn("big", {{"fat", 256, 2.0}, {"thin", 768, 1.0}}, "conservative");
  std::mt19937 rng(7);
  const int widths[] = {1, 2, 4, 8, 16, 32, 64};
  for (int i = 0; i < 400; ++i) {
    pb::SubmitJobResponse submitted;
    const std::string owner = std::vector<std::string>{"alice", "bob", "carol"}[i % 3];
    ASSERT_OK(Submit("big",
                     Named(Rigid(widths[rng() % 7], 1800 + static_cast<int>(rng() % 5400)),
                           absl::StrCat("sim-", i), owner),
                     &submitted));
  }
  const pb::Schedule schedule = Schedule("big");
  ExpectValid(schedule);
  ASSERT_OK(browser_->Navigate(PageUrl("big")));
  ASSERT_OK(browser_->WaitFor("return reschedLive.state === 'live' && reschedBars.length > 0;"));

  // All 1,024 rows: the processor axis at a round step, both groups named along it, a dashed
  // line where the fat group ends, dates on the time axis.
  std::set<std::string> texts = Texts();
  EXPECT_TRUE(texts.contains("0") && texts.contains("500") && texts.contains("1000"));
  EXPECT_TRUE(texts.contains("fat ×2")) << "group labels";
  EXPECT_TRUE(texts.contains("thin ×1"));
  EXPECT_TRUE(texts.contains("UTC"));
  EXPECT_TRUE(std::any_of(texts.begin(), texts.end(), [](const std::string& t) {
    return std::regex_match(t, std::regex(R"(\d{4}-\d{2}-\d{2})"));
  })) << "no date on the time axis";
  const double row_height =
      Run("return chartArea(document.getElementById('gantt')).height / 1024;");
  EXPECT_EQ(Run("return drawnShapes.filter(s => s.line && s.dash.length > 0 && "
                "Math.abs(s.line[1] - (256 * arguments[0] - 0.5)) < 0.01).length;",
                {row_height}),
            1);

  // The busy strip is the capacity less the schedule's free profile, step by step.
  for (const pb::FreeStep& step : schedule.free_profile()) {
    const double middle = (static_cast<double>(step.start().seconds()) +
                           static_cast<double>(std::min<int64_t>(
                               step.end().seconds(), step.start().seconds() + 1'000'000))) /
                          2;
    const nlohmann::json busy =
        Run("const steps = window.reschedUtilization; let busy = 0;"
            "for (const [t, b] of steps) { if (t <= arguments[0]) busy = b; }"
            "return busy;",
            {middle});
    EXPECT_EQ(busy, 1024 - step.free()) << "at " << middle;
  }
  KeepScreenshot("web-view-1024.png");

  // Page Up zooms on processors four times: 64 rows, each job's bars within them and the chart,
  // wide bars labelled with their job's id and name.
  Key("PageUp", 4);
  EXPECT_EQ(Run("return rowWindow().count;"), 64);
  const nlohmann::json inside = Run(
      "const area = chartArea(document.getElementById('gantt')); const rows = rowWindow();"
      "return reschedBars.every(b => b.first >= rows.first && b.first + b.count <= rows.first + "
      "rows.count && b.y >= 0 && b.y + b.height <= area.height + 0.5);");
  EXPECT_EQ(inside, true);
  texts = Texts();
  const nlohmann::json labelled =
      Run("return state.items.filter(i => drawnShapes.some(s => s.text === i.label || "
          "(s.text && s.text.endsWith('…') && i.label.startsWith(s.text.slice(0, -1))))).length;");
  EXPECT_GT(labelled.get<int>(), 5) << "jobs labelled on their bars";
  // The arrows pan the processors; Shift and the wheel zoom on them around the pointer.
  const int first = Run("return rowWindow().first;").get<int>();
  Key("ArrowDown", 2);
  EXPECT_GT(Run("return rowWindow().first;").get<int>(), first);
  Run("const canvas = document.getElementById('gantt'); const box = canvas.getBoundingClientRect();"
      "canvas.dispatchEvent(new WheelEvent('wheel', {clientX: box.left + box.width / 2,"
      "  clientY: box.top + box.height / 4, deltaY: -100, shiftKey: true, bubbles: true,"
      "  cancelable: true})); return true;");
  EXPECT_LT(Run("return rowWindow().count;").get<int>(), 64);
  Key("PageDown", 1);
  KeepScreenshot("web-view-1024-zoomed.png");

  // The SVG export draws the same bars, each with its title, and the same texts.
  const nlohmann::json svg =
      Run("const doc = new DOMParser().parseFromString(reschedChartSvg(), 'image/svg+xml');"
          "return [doc.getElementsByTagName('parsererror').length,"
          "        [...doc.querySelectorAll('rect')].filter(r => r.querySelector('title')).length,"
          "        reschedBars.filter(b => b.kind !== 'whatif').length,"
          "        [...doc.querySelectorAll('text')].map(t => t.textContent)];");
  EXPECT_EQ(svg[0], 0) << "the SVG does not parse";
  EXPECT_EQ(svg[1], svg[2]);
  std::set<std::string> svg_texts;
  for (const auto& t : svg[3]) svg_texts.insert(t.get<std::string>());
  EXPECT_EQ(svg_texts, Texts());
  EXPECT_EQ(Run("return document.getElementById('gantt').toDataURL('image/png').slice(0, 22);"),
            "data:image/png;base64,");

  // Times in the browser's zone, said so; 0 fits both axes again.
  Choose("time-zone", "local");
  ASSERT_OK(browser_->WaitFor(
      "return document.getElementById('cluster-now').textContent.includes('local time (UTC');"));
  EXPECT_TRUE(Texts().contains("local"));
  Key("0");
  EXPECT_EQ(Run("return state.rows;"), nullptr);
}

TEST_F(PageChartTest, FiltersTablesAndDetailsNameTheTenantTheDagAndTheModelInWords) {
  CreateSim("sim", 16, "conservative");
  pb::SubmitJobResponse align, render, other;
  ASSERT_OK(Submit("sim", Named(Rigid(4, 600), "align-1", "alice"), &align));
  pb::JobSpec amdahl = Named(pb::JobSpec(), "render, \"final\"", "bob");
  amdahl.mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(3600);
  amdahl.mutable_model()->mutable_amdahl()->set_alpha(0.22);
  amdahl.mutable_model()->mutable_amdahl()->set_k_max(8);
  ASSERT_OK(Submit("sim", amdahl, &render));
  ASSERT_OK(Submit("sim", Named(Rigid(2, 900), "sweep", "carol"), &other));
  pb::AddReservationRequest hold;
  hold.set_cluster("sim");
  hold.set_processors(2);
  hold.set_reason("maintenance");
  hold.mutable_start()->set_seconds(20'000);
  hold.mutable_end()->set_seconds(30'000);
  pb::Reservation reservation;
  {
    grpc::ClientContext context;
    ASSERT_OK(stub_->AddReservation(&context, hold, &reservation));
  }
  pb::ReserveDAGRequest dag;
  dag.set_cluster("sim");
  dag.set_label("nightly");
  for (const char* name : {"a", "b"}) {
    pb::DagTask* task = dag.mutable_dag()->add_tasks();
    task->set_name(name);
    task->mutable_model()->mutable_rigid()->set_k(2);
    task->mutable_model()->mutable_rigid()->mutable_time()->set_seconds(1200);
  }
  pb::DagEdge* edge = dag.mutable_dag()->add_edges();
  edge->set_from("a");
  edge->set_to("b");
  pb::ReserveDAGResponse reserved;
  {
    grpc::ClientContext context;
    ASSERT_OK(stub_->ReserveDAG(&context, dag, &reserved));
  }
  ExpectValid(Schedule("sim"));

  ASSERT_OK(browser_->Navigate(PageUrl("sim")));
  ASSERT_OK(browser_->WaitFor(
      "return reschedLive.state === 'live' && reschedBars.some(b => b.kind === 'dag') && "
      "document.querySelectorAll('#dags tbody tr').length === 1 && "
      "document.querySelectorAll('#filter-owner option').length === 4;"));
  EXPECT_EQ(TableIds("holds"), std::vector<std::string>{reservation.id()});
  EXPECT_EQ(TableIds("dags"), std::vector<std::string>{reserved.dag_id()});
  EXPECT_THAT(
      Run("return document.querySelector('#dags tbody tr').textContent;").get<std::string>(),
      ::testing::HasSubstr("nightly"));

  // A tenant: its jobs alone in the table; the others' bars fade, its own keep their colour.
  const std::string colours =
      "return [arguments[0], arguments[1]].map(id => "
      "reschedBars.find(b => b.id === id).colour);";
  const nlohmann::json before = Run(colours, {align.job().id(), render.job().id()});
  Choose("filter-owner", "bob");
  EXPECT_EQ(TableIds("jobs"), std::vector<std::string>{render.job().id()});
  const nlohmann::json after = Run(colours, {align.job().id(), render.job().id()});
  EXPECT_NE(after[0], before[0]) << "alice's job is not faded";
  EXPECT_EQ(after[1], before[1]) << "bob's job faded";
  EXPECT_EQ(TableIds("dags"), std::vector<std::string>{}) << "the DAG has no owner";
  // jobs.csv under the same filters lists the same jobs, its fields quoted (RFC 4180).
  const std::string csv = Get(Run("return jobsCsvPath();").get<std::string>());
  std::vector<std::string> lines = absl::StrSplit(csv, "\r\n", absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << csv;
  EXPECT_EQ(lines[0],
            R"("id","name","owner","state","processors","start","end","wait_seconds","submitted")");
  EXPECT_THAT(lines[1], ::testing::StartsWith(absl::StrCat("\"", render.job().id(),
                                                           R"(","render, ""final""","bob",)")));
  Choose("filter-owner", "");

  // Find: the DAG's label keeps its tasks and its row, and no job.
  Choose("find", "NIGHTLY");
  EXPECT_EQ(TableIds("jobs"), std::vector<std::string>{});
  EXPECT_EQ(Run("return document.getElementById('jobs-shown').textContent;"), "No job matches.");
  EXPECT_EQ(TableIds("dags"), std::vector<std::string>{reserved.dag_id()});
  KeepScreenshot("web-view-filters.png");
  Choose("find", "");
  // Holds only.
  Choose("filter-state", "reserved");
  EXPECT_EQ(TableIds("jobs"), std::vector<std::string>{});
  EXPECT_EQ(TableIds("holds"), std::vector<std::string>{reservation.id()});
  Choose("filter-state", "");

  // A job's details in words: its model, owner, wait, and what its stretch is.
  Run("document.querySelector('#jobs tbody tr[data-job=\"' + arguments[0] + '\"]').click();"
      "return true;",
      {render.job().id()});
  const std::string detail =
      Run("return document.getElementById('detail').innerText;").get<std::string>();
  EXPECT_THAT(detail, ::testing::HasSubstr("moldable by Amdahl's law: 1 h 00 min on one processor, "
                                           "sequential fraction 0.22, on 1 to 8 processors"));
  EXPECT_THAT(detail, ::testing::Not(::testing::HasSubstr("0.2200000")));
  EXPECT_THAT(detail, ::testing::HasSubstr("bob"));
  EXPECT_THAT(detail, ::testing::HasSubstr("Wait"));
  EXPECT_THAT(detail, ::testing::HasSubstr("Saule et al. §2.1"));
  // A hold's row opens its details.
  Run("document.querySelector('#holds tbody tr').click(); return true;");
  EXPECT_THAT(Run("return document.getElementById('detail').innerText;").get<std::string>(),
              ::testing::HasSubstr("maintenance"));
  KeepScreenshot("web-view-details.png");
}

constexpr char kAdmin[] = "admin-token-5e1a";
constexpr char kAlice[] = "alice-token-77c2";
constexpr char kBob[] = "bob-token-0d93";

// The page as a user whose token sees other tenants' jobs as capacity only.
class PageTenantTest : public PageChartTest {
 protected:
  void Configure(Application& app) override {
    auto tokens = auth::TokenTable::Parse(
        absl::StrCat("tokens:\n", server::testing::GrantLine(kAdmin, "ops", "admin"),
                     server::testing::GrantLine(kAlice, "alice", "user"),
                     server::testing::GrantLine(kBob, "bob", "user")));
    ASSERT_OK(tokens);
    app.RequireTokens(std::make_shared<const auth::TokenTable>(*std::move(tokens)));
  }
  template <class Request, class Response>
  grpc::Status Call(const char* token,
                    grpc::Status (pb::Resched::Stub::*method)(grpc::ClientContext*, const Request&,
                                                              Response*),
                    const Request& request, Response* response) {
    return server::testing::CallAs(*stub_, token, method, request, response);
  }
  pb::Job SubmitAs(const char* token, const std::string& name) {
    pb::SubmitJobRequest request;
    request.set_cluster("shared");
    *request.mutable_job() = Named(Rigid(4, 600), name, "");
    pb::SubmitJobResponse response;
    EXPECT_OK(Call(token, &pb::Resched::Stub::SubmitJob, request, &response));
    return response.job();
  }
};

TEST_F(PageTenantTest, AnotherTenantsJobIsCapacityWithoutIdOrDetails) {
  pb::CreateClusterRequest create;
  create.mutable_spec()->set_name("shared");
  create.mutable_spec()->set_processors(8);
  create.mutable_spec()->set_clock(pb::SIMULATED);
  pb::Cluster cluster;
  ASSERT_OK(Call(kAdmin, &pb::Resched::Stub::CreateCluster, create, &cluster));
  const pb::Job mine = SubmitAs(kAlice, "alice-job");
  const pb::Job theirs = SubmitAs(kBob, "bob-job");

  ASSERT_OK(browser_->Navigate(PageUrl("shared")));
  Run("sessionStorage.setItem('reschedToken', arguments[0]); location.reload(); return true;",
      {kAlice});
  ASSERT_OK(browser_->WaitFor(
      "return window.reschedLive && reschedLive.state === 'live' && reschedLive.jobs.size === 2 "
      "&& document.querySelectorAll('#jobs tbody tr').length === 2;"));
  const std::vector<std::string> ids = TableIds("jobs");
  EXPECT_THAT(ids, ::testing::UnorderedElementsAre(mine.id(), "(another tenant's)"));
  const std::string table =
      Run("return document.getElementById('jobs').innerText;").get<std::string>();
  EXPECT_THAT(table, ::testing::Not(::testing::HasSubstr(theirs.id())));
  EXPECT_THAT(table, ::testing::Not(::testing::HasSubstr("bob")));
  // Its row opens what the token may see of it: the capacity it takes, no id, no owner.
  Run("[...document.querySelectorAll('#jobs tbody tr')]"
      "    .find(r => r.cells[0].textContent !== arguments[0]).click(); return true;",
      {mine.id()});
  const std::string detail =
      Run("return document.getElementById('detail').innerText;").get<std::string>();
  EXPECT_THAT(detail, ::testing::HasSubstr("Another tenant's job"));
  EXPECT_THAT(detail, ::testing::HasSubstr("Processors"));
  EXPECT_THAT(detail, ::testing::Not(::testing::HasSubstr("undefined")));
  EXPECT_THAT(detail, ::testing::Not(::testing::HasSubstr("bob")));
  // The tenant filter offers the tenants the token sees: its own.
  EXPECT_EQ(Run("return [...document.querySelectorAll('#filter-owner option')].map(o => o.value);"),
            nlohmann::json({"", "alice"}));
}

}  // namespace
}  // namespace resched::server::web
