// The web view's page in headless Chromium (target: 10k jobs on a 1,024-processor cluster
// render in under 1 s and pan smoothly): a SIMULATED cluster of 1,024 processors (conservative
// backfilling) holding N jobs, the page loaded five times, and 20 pans after each load.
// Counters, medians over the loads: load_ms (navigation start to the first complete drawing:
// the page, the JSON of N jobs over HTTP, parsing and drawing), draw_ms (one drawing alone),
// pan_ms (a drawing after a pan). The baseline in the same run is the same page with 100 jobs.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/loopback_server.h"
#include "server/web/http_view.h"
#include "tests/testing/browser.h"

namespace {

namespace pb = ::resched::v1;
using resched::bench::LoopbackServer;
using resched::server::web::HttpView;
using resched::testing::Browser;

constexpr int kLoads = 5;
constexpr int kPans = 20;

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

void BM_PageRender(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    LoopbackServer server;
    resched::bench::CreateSimulatedCluster(server.stub(), "big", 1024);
    std::mt19937_64 rng(7);
    resched::bench::SubmitRandomJobs(server.stub(), "big", jobs, rng);
    HttpView::Options options;
    options.address = "127.0.0.1:0";
    options.channel = server.server().InProcessChannel({});
    options.watches = &server.service().watches();
    auto view = HttpView::Start(std::move(options));
    auto browser = Browser::Start();
    if (!view.ok() || !browser.ok()) {
      state.SkipWithError(
          std::string(!view.ok() ? view.status().message() : browser.status().message()).c_str());
      return;
    }
    const std::string url = absl::StrCat("http://127.0.0.1:", (*view)->port(), "/#big");
    state.ResumeTiming();
    std::vector<double> load_ms, draw_ms, pan_ms;
    for (int load = 0; load < kLoads; ++load) {
      if (!(*browser)->Navigate(url).ok()) std::abort();
      if (!(*browser)->WaitFor("return window.reschedBars.length > 0;", absl::Seconds(60)).ok()) {
        std::abort();
      }
      auto loaded = (*browser)->Run(
          "return [window.reschedFirstDrawnAt, window.reschedDrawMs, window.reschedBars.length];");
      if (!loaded.ok()) std::abort();
      load_ms.push_back((*loaded)[0].get<double>());
      draw_ms.push_back((*loaded)[1].get<double>());
      auto panned = (*browser)->Run(
          "const canvas = document.getElementById('gantt'); const times = [];"
          "for (let i = 0; i < arguments[0]; i++) {"
          "  canvas.dispatchEvent(new KeyboardEvent('keydown', {key: i % 2 ? 'ArrowLeft' : "
          "'ArrowRight'}));"
          "  times.push(window.reschedDrawMs);"
          "}"
          "return times;",
          {kPans});
      if (!panned.ok()) std::abort();
      for (const auto& ms : *panned) pan_ms.push_back(ms.get<double>());
    }
    state.counters["load_ms"] = Median(load_ms);
    state.counters["draw_ms"] = Median(draw_ms);
    state.counters["pan_ms"] = Median(pan_ms);
    state.PauseTiming();
    browser->reset();
    view->reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_PageRender)
    ->Arg(100)
    ->Arg(10'000)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
