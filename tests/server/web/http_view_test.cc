// The web view over real HTTP (cpp-httplib's client) against the service on loopback: the JSON
// API answers what the gRPC calls answer, errors name what is wrong, the page is served, and
// the event stream follows the cluster live.
#include "server/web/http_view.h"

#include <google/protobuf/util/message_differencer.h>

#include <atomic>
#include <thread>

#include "core/workload/gzip.h"
#include "proto/resched/dag_import.h"
#include "server/web/compression.h"
#include "tests/server/web/web_fixture.h"

namespace resched::server::web {
namespace {

namespace pb = ::resched::v1;
using testing::HttpViewTest;
using testing::kThreeTaskDax;

// The event stream says nothing between events, so its readers wait longer than httplib's
// default read timeout (5 s), and the tests as long for what they expect (sanitizer builds run
// two test binaries at a time on two cores).
constexpr time_t kStreamReadTimeoutSeconds = 60;
constexpr int kWaitTenMillisecondSteps = 3'000;  // 30 s

TEST_F(HttpViewTest, TheScheduleIsGetSchedulesAnswerField) {
  CreateSim("sim", 8, "conservative");
  pb::SubmitJobResponse submitted;
  ASSERT_OK(Submit("sim", Rigid(6, 100), &submitted));
  ASSERT_OK(Submit("sim", Rigid(4, 50), &submitted));
  ASSERT_OK(Submit("sim", Rigid(2, 30), &submitted));
  pb::AdvanceClockResponse advanced;
  ASSERT_OK(AdvanceBy("sim", 40, &advanced));  // the third job has finished

  const pb::Schedule expected = Schedule("sim");
  ASSERT_EQ(expected.jobs_size(), 3);
  const auto json = Parse<pb::Schedule>(
      Get("/api/v1/clusters/sim/schedule?include_finished=true&from=1970-01-01T00:00:00Z"));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(json, expected))
      << json.DebugString() << "\nagainst\n"
      << expected.DebugString();
  ExpectValid(json);
  // Without include_finished the finished job is left out, as GetSchedule leaves it out.
  const auto current = Parse<pb::Schedule>(Get("/api/v1/clusters/sim/schedule"));
  EXPECT_EQ(current.jobs_size(), 2);
  ExpectValid(current);
}

TEST_F(HttpViewTest, ClustersJobsAndAlgorithmsAnswerAsTheirCalls) {
  CreateSim("sim", 8, "easy");
  pb::SubmitJobResponse submitted;
  ASSERT_OK(Submit("sim", Rigid(8, 100), &submitted));
  ASSERT_OK(Submit("sim", Rigid(8, 100), &submitted));

  const auto clusters = Parse<pb::ListClustersResponse>(Get("/api/v1/clusters"));
  ASSERT_GE(clusters.clusters_size(), 2);  // the configuration's default cluster and sim
  const auto cluster = Parse<pb::Cluster>(Get("/api/v1/clusters/sim"));
  EXPECT_EQ(cluster.capacity(), 8);
  EXPECT_EQ(cluster.running_jobs(), 1);
  EXPECT_EQ(cluster.queued_jobs(), 1);

  const auto queued = Parse<pb::ListJobsResponse>(Get("/api/v1/clusters/sim/jobs?states=QUEUED"));
  ASSERT_EQ(queued.jobs_size(), 1);
  EXPECT_EQ(queued.jobs(0).id(), submitted.job().id());
  const auto both =
      Parse<pb::ListJobsResponse>(Get("/api/v1/clusters/sim/jobs?states=QUEUED,RUNNING"));
  EXPECT_EQ(both.jobs_size(), 2);
  const auto job = Parse<pb::Job>(Get("/api/v1/clusters/sim/jobs/" + submitted.job().id()));
  EXPECT_EQ(job.state(), pb::QUEUED);

  const auto algorithms = Parse<pb::ListAlgorithmsResponse>(Get("/api/v1/algorithms"));
  EXPECT_GT(algorithms.algorithms_size(), 5);
  EXPECT_EQ(Parse<pb::ListDagReservationsResponse>(Get("/api/v1/clusters/sim/dags")).dags_size(),
            0);
}

// jobs.csv: the jobs that held processors, with the page's filters, as CSV; its own parameters'
// errors name them.
TEST_F(HttpViewTest, JobsCsvListsTheJobsThatHeldProcessorsUnderThePagesFilters) {
  CreateSim("sim", 8, "fcfs");
  pb::SubmitJobResponse running, queued, cancelled;
  pb::JobSpec named = Rigid(8, 100);
  named.set_name("first");
  named.set_owner("alice");
  ASSERT_OK(Submit("sim", named, &running));
  ASSERT_OK(Submit("sim", Rigid(8, 100), &queued));
  ASSERT_OK(Submit("sim", Rigid(8, 100), &cancelled));
  ASSERT_OK(Cancel("sim", cancelled.job().id()));  // never held a processor: not listed
  const std::string header =
      "\"id\",\"name\",\"owner\",\"state\",\"processors\",\"start\",\"end\",\"wait_seconds\","
      "\"submitted\"\r\n";
  httplib::Result all = client_->Get("/api/v1/clusters/sim/jobs.csv");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->get_header_value("Content-Type"), "text/csv; charset=utf-8");
  EXPECT_EQ(all->body,
            absl::StrCat(header, "\"", running.job().id(),
                         "\",\"first\",\"alice\",\"RUNNING\",\"8\",\"1970-01-01T00:00:00Z\","
                         "\"1970-01-01T00:01:40Z\",\"0\",\"1970-01-01T00:00:00Z\"\r\n\"",
                         queued.job().id(),
                         "\",\"\",\"\",\"QUEUED\",\"8\",\"1970-01-01T00:01:40Z\","
                         "\"1970-01-01T00:03:20Z\",\"100\",\"1970-01-01T00:00:00Z\"\r\n"));
  EXPECT_THAT(Get("/api/v1/clusters/sim/jobs.csv?states=queued"),
              ::testing::AllOf(::testing::HasSubstr(queued.job().id()),
                               ::testing::Not(::testing::HasSubstr(running.job().id()))));
  EXPECT_THAT(Get("/api/v1/clusters/sim/jobs.csv?find=FIRS"),
              ::testing::AllOf(::testing::HasSubstr(running.job().id()),
                               ::testing::Not(::testing::HasSubstr(queued.job().id()))));
  EXPECT_EQ(Get("/api/v1/clusters/sim/jobs.csv?owner=bob"), header);
  EXPECT_THAT(Get("/api/v1/clusters/sim/jobs.csv?owner=a&owner=b", 400),
              ::testing::HasSubstr("query parameter 'owner' is given twice"));
  EXPECT_THAT(Get("/api/v1/clusters/sim/jobs.csv?page_size=3", 400),
              ::testing::HasSubstr("query parameter 'page_size' is not one jobs.csv takes (states, "
                                   "ended_after, find, owner)"));
  EXPECT_THAT(
      Get("/api/v1/clusters/sim/jobs.csv?ended_after=soon", 400),
      ::testing::HasSubstr("query parameter 'ended_after' is 'soon', not an RFC 3339 time"));
  EXPECT_THAT(Get("/api/v1/clusters/nope/jobs.csv", 404), ::testing::HasSubstr("'nope' not found"));
}

TEST_F(HttpViewTest, ErrorsNameWhatIsWrong) {
  CreateSim("sim", 8, "fcfs");
  EXPECT_THAT(Get("/api/v1/clusters/nope/schedule", 404),
              ::testing::HasSubstr("cluster 'nope' not found"));
  EXPECT_THAT(Get("/api/v1/clusters/sim/schedule?bogus=1", 400),
              ::testing::HasSubstr("query parameter 'bogus' is not a field of GetScheduleRequest"));
  EXPECT_THAT(Get("/api/v1/clusters/sim/schedule?include_finished=maybe", 400),
              ::testing::HasSubstr("'include_finished' must be true or false, got 'maybe'"));
  EXPECT_THAT(Get("/api/v1/clusters/sim/schedule?from=yesterday", 400),
              ::testing::HasSubstr("query parameter 'from' must be an RFC 3339 time such as "
                                   "2026-12-01T08:00:00Z, got 'yesterday'"));
  EXPECT_THAT(Get("/api/v1/clusters/sim/jobs?page_size=many", 400),
              ::testing::HasSubstr("query parameter 'page_size' must be a whole number of at "
                                   "most 10 digits, got 'many'"));
  EXPECT_THAT(Get("/api/v1/clusters/sim/jobs?page_size=99999999999", 400),
              ::testing::HasSubstr("'page_size' must be a whole number"));
  EXPECT_THAT(Get("/api/v1/clusters/sim/schedule?cluster=a&cluster=b", 400),
              ::testing::HasSubstr("'cluster' is given twice"));
  EXPECT_THAT(Get("/api/v1/clusters/sim/schedule?cluster=other", 400),
              ::testing::HasSubstr("query parameter 'cluster' is set by the path "
                                   "'/api/v1/clusters/sim/schedule'; leave it out of the query"));
  EXPECT_THAT(Get("/api/v1/clusters/sim?name=other", 400),
              ::testing::HasSubstr("query parameter 'name' is set by the path"));
  EXPECT_THAT(Get("/api/v1/clusters/sim/jobs?states=SLEEPING", 400),
              ::testing::HasSubstr("query parameter 'states' must be one of queued, running, "));
  // States in any case, as the CLI takes them.
  EXPECT_EQ(Get("/api/v1/clusters/sim/jobs?states=queued,Running"), "{}");
  // A route that takes other methods: 405, saying which.
  httplib::Result posted = client_->Post("/api/v1/clusters", "{}", "application/json");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 405);
  EXPECT_EQ(posted->get_header_value("Allow"), "GET, HEAD");
  EXPECT_THAT(posted->body, ::testing::HasSubstr("POST is not a method of '/api/v1/clusters'"));
  httplib::Result got = client_->Get("/api/v1/clusters/sim/what-if/job");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 405);
  EXPECT_EQ(got->get_header_value("Allow"), "POST");
  EXPECT_THAT(Get("/api/v1/nothing/here", 404), ::testing::HasSubstr("NOT_FOUND"));
  EXPECT_THAT(Get("/nothing.js", 404), ::testing::HasSubstr("no page at '/nothing.js'"));
}

TEST_F(HttpViewTest, ThePageAndMetricsAreServed) {
  httplib::Result page = client_->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_THAT(page->body, ::testing::HasSubstr("<canvas id=\"gantt\""));
  httplib::Result script = client_->Get("/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_THAT(script->body, ::testing::HasSubstr("/api/v1/clusters"));
  (void)Get("/api/v1/clusters");
  EXPECT_THAT(Get("/metrics"),
              ::testing::HasSubstr("resched_calls_total{code=\"OK\",method=\"ListClusters\"}"));
}

// Between events, the stream sends a comment line every heartbeat (which EventSource skips).
TEST_F(HttpViewTest, TheEventStreamFollowsTheClusterUntilTheViewStops) {
  CreateSim("sim", 8, "fcfs");
  RestartViewWithHeartbeat(std::chrono::milliseconds(20));
  std::atomic<bool> saw_first_schedule = false;
  std::atomic<int> heartbeats = 0;
  std::atomic<bool> saw_job = false;
  std::string received;
  const int port = view_->port();
  std::thread reader([&] {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(kStreamReadTimeoutSeconds, 0);
    client.Get("/api/v1/clusters/sim/events", [&](const char* data, size_t size) {
      received.append(data, size);
      if (received.starts_with("event: SCHEDULE\nid: 0\ndata: {")) saw_first_schedule = true;
      int count = 0;
      for (size_t at = received.find(": heartbeat\n\n"); at != std::string::npos;
           at = received.find(": heartbeat\n\n", at + 1)) {
        ++count;
      }
      heartbeats = count;
      if (received.find("event: JOB_CHANGED\nid: 1\ndata: {") != std::string::npos) saw_job = true;
      return true;
    });
  });
  auto wait_for = [](const auto& done) {
    for (int i = 0; i < kWaitTenMillisecondSteps && !done(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return done();
  };
  // EXPECT, not ASSERT, until the reader is joined: returning with it joinable would abort.
  EXPECT_TRUE(wait_for([&] { return saw_first_schedule.load(); }));
  EXPECT_TRUE(wait_for([&] { return heartbeats >= 3; })) << heartbeats << " heartbeats";
  pb::SubmitJobResponse submitted;
  EXPECT_OK(Submit("sim", Rigid(2, 10), &submitted));
  EXPECT_TRUE(wait_for([&] { return saw_job.load(); }));
  view_.reset();  // ends the open stream: the reader returns
  reader.join();
  EXPECT_NE(received.find("\"id\":\"" + submitted.job().id() + "\""), std::string::npos);
}

// A browser that reconnects sends the last event's id, and the stream resumes after it.
TEST_F(HttpViewTest, AReconnectingPageGetsTheEventsAfterItsLastEventId) {
  CreateSim("sim", 8, "fcfs");
  pb::SubmitJobResponse submitted;
  for (int i = 0; i < 3; ++i) ASSERT_OK(Submit("sim", Rigid(1, 10 + i), &submitted));
  httplib::Client client("127.0.0.1", view_->port());
  client.set_read_timeout(kStreamReadTimeoutSeconds, 0);
  std::string received;
  (void)client.Get("/api/v1/clusters/sim/events", {{"Last-Event-ID", "2"}},
                   [&](const char* data, size_t size) {
                     received.append(data, size);
                     return received.find("\n\n") == std::string::npos;
                   });
  EXPECT_TRUE(received.starts_with("event: JOB_CHANGED\nid: 3\ndata: {")) << received;
  EXPECT_THAT(received, ::testing::HasSubstr("\"id\":\"" + submitted.job().id() + "\""));
}

// Streams of `clients` tokens (PREFIX-0, PREFIX-1, ...), `per_client` each, held open until the
// view stops.
class StreamHolders {
 public:
  StreamHolders(int port, const std::string& prefix, int clients, int per_client) {
    for (int c = 0; c < clients; ++c) {
      for (int i = 0; i < per_client; ++i) {
        readers_.emplace_back([this, port, prefix, c] {
          httplib::Client client("127.0.0.1", port);
          client.set_read_timeout(kStreamReadTimeoutSeconds, 0);
          bool counted = false;
          client.Get("/api/v1/clusters/sim/events",
                     {{"Authorization", absl::StrCat("Bearer ", prefix, "-", c)}},
                     [&](const char*, size_t) {
                       if (!counted) ++streaming_;
                       counted = true;
                       return true;
                     });
          if (counted) --streaming_;
        });
      }
    }
  }
  ~StreamHolders() { Join(); }
  // Whether `n` streams are open within 30 s.
  bool WaitFor(int n) {
    for (int i = 0; i < kWaitTenMillisecondSteps && streaming_ < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return streaming_ == n;
  }
  void Join() {
    for (auto& reader : readers_) {
      if (reader.joinable()) reader.join();
    }
  }

 private:
  std::atomic<int> streaming_ = 0;  // readers whose stream is open
  std::vector<std::thread> readers_;
};

// A stream that opened and ended would have EventSource reconnect for ever.
TEST_F(HttpViewTest, AnEventStreamForAClusterThatIsNotThereIsNotFound) {
  EXPECT_THAT(Get("/api/v1/clusters/nosuch/events", 404),
              ::testing::HasSubstr("cluster 'nosuch' not found"));
}

TEST_F(HttpViewTest, EventStreamsAreCappedAndTheApiStillAnswers) {
  CreateSim("sim", 8, "fcfs");
  constexpr int kCap = 16;  // http_view.cc's kMaxEventStreams, 4 clients of 4 streams
  StreamHolders holders(view_->port(), "holder", 4, 4);
  // EXPECT, not ASSERT, until the readers are joined: returning with them joinable would abort.
  EXPECT_TRUE(holders.WaitFor(kCap));
  EXPECT_THAT(Get("/api/v1/clusters/sim/events", 429),
              ::testing::HasSubstr("16 event streams on this web view are open, the limit"));
  EXPECT_THAT(Get("/api/v1/clusters/sim"), ::testing::HasSubstr("\"capacity\":8"));
  view_.reset();  // ends every stream
  holders.Join();
}

// One client (a token, or an address without one) holds no more than its share of the streams:
// the others still get theirs.
TEST_F(HttpViewTest, OneClientHoldsAtMostFourEventStreams) {
  CreateSim("sim", 8, "fcfs");
  StreamHolders holders(view_->port(), "holder", 1, 4);
  EXPECT_TRUE(holders.WaitFor(4));
  httplib::Headers same = {{"Authorization", "Bearer holder-0"}};
  httplib::Result refused = client_->Get("/api/v1/clusters/sim/events", same);
  EXPECT_TRUE(refused);
  if (refused) {
    EXPECT_EQ(refused->status, 429);
    EXPECT_THAT(refused->body,
                ::testing::HasSubstr("4 event streams on this web view are open for one "
                                     "client, the limit per client"));
  }
  StreamHolders others(view_->port(), "other", 3, 1);
  EXPECT_TRUE(others.WaitFor(3));
  view_.reset();
  holders.Join();
  others.Join();
}

// Pages that take the first schedule and go away, on a cluster where nothing happens: each frees
// its stream as it closes its connection, long before the next heartbeat (15 s), so three times
// the cap of them get their first schedule in turn. Were it freed at its next write, the 17th page
// would wait for that heartbeat.
TEST_F(HttpViewTest, APageThatWentAwayFreesItsStreamOnAQuietCluster) {
  CreateSim("sim", 8, "fcfs");
  const int port = view_->port();
  constexpr int kCap = 16;  // http_view.cc's kMaxEventStreams
  auto page_gets_its_first_schedule = [port] {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(kStreamReadTimeoutSeconds, 0);
    std::string received;
    // Returning false closes the connection: the page goes away once it has the first schedule (a
    // refused one, 429, gets no first schedule and goes at once too).
    (void)client.Get("/api/v1/clusters/sim/events", [&](const char* data, size_t size) {
      received.append(data, size);
      return received.find("\n\n") == std::string::npos;
    });
    return received.starts_with("event: SCHEDULE\nid: 0\ndata: {");
  };
  int pages = 0;
  int refused = 0;
  for (int step = 0; step < kWaitTenMillisecondSteps && pages < 3 * kCap; ++step) {
    if (page_gets_its_first_schedule()) {
      ++pages;
    } else {
      ++refused;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  EXPECT_EQ(pages, 3 * kCap) << refused << " pages were refused on the way";
}

// A large answer goes gzipped to a client that accepts it, the same JSON once inflated; a small
// one, or one for a client that does not, goes as it is.
TEST_F(HttpViewTest, LargeAnswersAreGzippedForAClientThatAcceptsIt) {
  CreateSim("sim", 8, "conservative");
  for (int i = 0; i < 20; ++i) {
    pb::SubmitJobResponse submitted;
    ASSERT_OK(Submit("sim", Rigid(1 + i % 8, 10 + i), &submitted));
  }
  httplib::Client raw("127.0.0.1", view_->port());
  raw.set_decompress(false);  // and so sends no Accept-Encoding of its own
  httplib::Result plain = raw.Get("/api/v1/clusters/sim/schedule");
  ASSERT_TRUE(plain);
  ASSERT_EQ(plain->status, 200);
  EXPECT_FALSE(plain->has_header("Content-Encoding"));
  ASSERT_GE(plain->body.size(), kGzipFromBytes);
  ExpectValid(Parse<pb::Schedule>(plain->body));

  httplib::Result gzipped =
      raw.Get("/api/v1/clusters/sim/schedule", {{"Accept-Encoding", "gzip, deflate, br"}});
  ASSERT_TRUE(gzipped);
  ASSERT_EQ(gzipped->status, 200);
  EXPECT_EQ(gzipped->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(gzipped->get_header_value("Vary"), "Accept-Encoding");
  EXPECT_EQ(gzipped->get_header_value("Content-Length"), std::to_string(gzipped->body.size()));
  EXPECT_LT(gzipped->body.size(), plain->body.size() / 3);
  const absl::StatusOr<std::string> inflated = Gunzip(gzipped->body);
  ASSERT_TRUE(inflated.ok()) << inflated.status();
  EXPECT_EQ(*inflated, plain->body);

  // A small answer is not worth the header.
  httplib::Result small = raw.Get("/api/v1/clusters/sim", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(small);
  EXPECT_LT(small->body.size(), kGzipFromBytes);
  EXPECT_FALSE(small->has_header("Content-Encoding"));
  EXPECT_THAT(small->body, ::testing::HasSubstr("\"capacity\":8"));
}

TEST_F(HttpViewTest, AWhatIfJobShowsWhereItWouldGoAndCommitsNothing) {
  CreateSim("sim", 8, "conservative");
  pb::SubmitJobResponse submitted;
  ASSERT_OK(Submit("sim", Rigid(8, 100), &submitted));
  httplib::Result result = client_->Post(
      "/api/v1/clusters/sim/what-if/job",
      R"({"model": {"rigid": {"k": 4, "time": "50s"}}, "name": "probe"})", "application/json");
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
  const auto answer = Parse<pb::SubmitJobResponse>(result->body);
  EXPECT_EQ(answer.job().allocation().processors(), 4);
  EXPECT_EQ(answer.job().allocation().start().seconds(), 100);  // after the running job
  const pb::Schedule schedule = Schedule("sim");
  EXPECT_EQ(schedule.jobs_size(), 1);  // nothing committed
  pb::Job what_if = answer.job();
  what_if.set_id("what-if");        // a dry run's job has no id
  ExpectValid(schedule, &what_if);  // it fits beside what the cluster holds

  result = client_->Post("/api/v1/clusters/sim/what-if/job", R"({"model": {"rigid": 4}})",
                         "application/json");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 400);
  EXPECT_THAT(result->body, ::testing::HasSubstr("body (a JobSpec in JSON)"));
}

TEST_F(HttpViewTest, ABodyOverTheLimitIsRefusedWithTheLimit) {
  CreateSim("sim", 8, "conservative");
  HttpView::Options options = ViewOptions("127.0.0.1:0");
  options.max_body_bytes = 1024;
  absl::StatusOr<std::unique_ptr<HttpView>> small = HttpView::Start(options);
  ASSERT_OK(small);
  httplib::Client client("127.0.0.1", (*small)->port());
  std::string body(2048, ' ');
  body += kThreeTaskDax;
  httplib::Result result =
      client.Post("/api/v1/clusters/sim/what-if/dag?file=w.dax", body, "application/xml");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 413);
  EXPECT_THAT(
      result->body,
      ::testing::HasSubstr("the request body is larger than 1024 bytes, the web view's limit"));
  EXPECT_EQ(Parse<pb::ListDagReservationsResponse>(Get("/api/v1/clusters/sim/dags")).dags_size(),
            0);
}

TEST_F(HttpViewTest, AWhatIfDagFileGetsAPlanAndTheTightestDeadlineAndCommitsNothing) {
  CreateSim("sim", 8, "conservative");
  httplib::Result result =
      client_->Post("/api/v1/clusters/sim/what-if/dag?algorithm=heft&file=w.dax", kThreeTaskDax,
                    "application/xml");
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
  const auto answer = Parse<pb::QueryDeadlineResponse>(result->body);
  EXPECT_TRUE(answer.feasible());
  EXPECT_EQ(answer.placements_size(), 3);
  EXPECT_TRUE(answer.has_tightest_deadline());
  for (const pb::TaskPlacement& placement : answer.placements()) {
    EXPECT_LE(placement.allocation().end().seconds(), answer.tightest_deadline().seconds());
  }
  // Read as the view read it: the same importer, default options.
  absl::StatusOr<pb::Dag> dag =
      api::ParseDagText("w.dax", kThreeTaskDax, api::DagFormat::kAuto, {});
  ASSERT_OK(dag);
  ExpectValidPlan(*dag, answer.placements(), Schedule("sim"));
  EXPECT_EQ(Parse<pb::ListDagReservationsResponse>(Get("/api/v1/clusters/sim/dags")).dags_size(),
            0);  // nothing committed

  result =
      client_->Post("/api/v1/clusters/sim/what-if/dag?format=xml", kThreeTaskDax, "text/plain");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 400);
  EXPECT_THAT(result->body, ::testing::HasSubstr(
                                "query parameter 'format': xml: expected dag, wfcommons or dax"));
  result = client_->Post("/api/v1/clusters/sim/what-if/dag?alpha=2", kThreeTaskDax, "text/plain");
  ASSERT_TRUE(result);
  EXPECT_THAT(result->body, ::testing::HasSubstr("'alpha' must be in [0, 1], got '2'"));
  result =
      client_->Post("/api/v1/clusters/sim/what-if/dag?commit=true", kThreeTaskDax, "text/plain");
  ASSERT_TRUE(result);
  EXPECT_THAT(result->body, ::testing::HasSubstr("query parameter 'commit' is not one of"));
  // A body posted as a form (curl's default content type) stays the body: its lines are no
  // query parameters.
  result = client_->Post("/api/v1/clusters/sim/what-if/dag?file=w.dax", kThreeTaskDax,
                         "application/x-www-form-urlencoded");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200) << result->body;
  result = client_->Post("/api/v1/clusters/sim/what-if/dag?format=dax", "<adag", "text/plain");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 400);
  EXPECT_THAT(result->body, ::testing::HasSubstr("body: as a DAX file"));
}

TEST_F(HttpViewTest, AnAddressItCannotTakeIsRefusedNamingIt) {
  const std::string taken = "127.0.0.1:" + std::to_string(view_->port());
  auto second = HttpView::Start(ViewOptions(taken));
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), ::testing::HasSubstr("cannot listen on " + taken));
  auto malformed = HttpView::Start(ViewOptions("localhost"));
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(malformed.status().message(), ::testing::HasSubstr("HOST:PORT"));
}

}  // namespace
}  // namespace resched::server::web
