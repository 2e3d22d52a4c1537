// A durable call waiting for its commit holds no thread: while the journal's thread is stuck,
// more calls than there are workers all reach the journal, other calls are answered, and none
// of the waiting ones is answered before its record is on disk. (A failed commit failing the
// calls that waited for it: DurabilityTest.AFullDiskRefusesChangesKeepsReadsAndRecovers.)
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/app/limits.h"
#include "server/store/journal.h"
#include "tests/server/server_fixture.h"
#include "tests/server/store/commit_gate.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"

namespace resched::server::testing {
namespace {

class DeferredDurabilityTest : public ServerTest {
 protected:
  DeferredDurabilityTest() { data_dir_ = temp_.path(); }

  const resched::testing::TempDir temp_{"resched-deferred"};
};

TEST_F(DeferredDurabilityTest, CallsWaitingForTheirCommitHoldNoWorker) {
  CreateSim("sim", 64, "fcfs");
  Journal* journal = app_->journal();
  ASSERT_NE(journal, nullptr);
  // Shared with the observer, which the journal's thread may still hold after the test's end.
  auto gate = std::make_shared<CommitGate>();
  journal->SetCommitObserver([gate](double, std::size_t) { gate->Hold(); });
  pb::SubmitJobResponse first;
  ASSERT_OK(Submit("sim", Rigid(1, 60), &first));  // answered, then its commit's observer holds
  gate->WaitHeld();
  const std::int64_t before = journal->last_lsn();

  // Three times as many as there are workers: with each holding a worker until its commit,
  // only kWorkerThreads of them would reach the journal.
  const int calls = 3 * kWorkerThreads;
  std::atomic<int> answered{0};
  std::atomic<int> failed{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < calls; ++i) {
    clients.emplace_back([&, i] {
      pb::SubmitJobResponse response;
      if (!Submit("sim", Rigid(1 + i % 4, 60), &response).ok()) ++failed;
      ++answered;
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (journal->last_lsn() < before + calls && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(journal->last_lsn(), before + calls) << "calls did not reach the journal";
  // A call that needs no commit is answered meanwhile, by a worker.
  pb::ListAlgorithmsResponse algorithms;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  EXPECT_OK(stub_->ListAlgorithms(&context, pb::ListAlgorithmsRequest(), &algorithms));
  EXPECT_EQ(answered.load(), 0) << "answered before its record was on disk";
  EXPECT_FALSE(journal->Durable(before + 1));

  gate->Open();
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_TRUE(journal->Durable(before + calls));
  pb::ListJobsRequest list;
  list.set_cluster("sim");
  pb::ListJobsResponse jobs;
  grpc::ClientContext list_context;
  ASSERT_OK(stub_->ListJobs(&list_context, list, &jobs));
  EXPECT_EQ(jobs.jobs_size(), calls + 1);
  ExpectValid(Schedule("sim"));
}

}  // namespace
}  // namespace resched::server::testing
