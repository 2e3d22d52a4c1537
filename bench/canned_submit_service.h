// A Resched service whose SubmitJob answers a fixed response at once, on a loopback port of its
// own: the same request and answer on the wire as the real service, without resched's handler
// (authorization, metrics, the cluster's lock, the plan, the answer's conversion). What the
// transport and protobuf alone allow a SubmitJob on this machine.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "resched/v1/service.grpc.pb.h"

namespace resched::bench {

class CannedSubmitService final : public ::resched::v1::Resched::CallbackService {
 public:
  // `answers`: what a SubmitJob gets, by the kind of its job's model (RuntimeModel::KindCase),
  // e.g. a real service's answers to those kinds of jobs; at least one.
  explicit CannedSubmitService(std::map<int, ::resched::v1::SubmitJobResponse> answers)
      : answers_(std::move(answers)) {
    if (answers_.empty()) std::abort();
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr) std::abort();
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials());
    stub_ = ::resched::v1::Resched::NewStub(channel_);
  }
  ~CannedSubmitService() override { server_->Shutdown(); }
  CannedSubmitService(const CannedSubmitService&) = delete;
  CannedSubmitService& operator=(const CannedSubmitService&) = delete;

  grpc::ServerUnaryReactor* SubmitJob(grpc::CallbackServerContext* context,
                                      const ::resched::v1::SubmitJobRequest* request,
                                      ::resched::v1::SubmitJobResponse* response) override {
    const auto it = answers_.find(request->job().model().kind_case());
    *response = it != answers_.end() ? it->second : answers_.begin()->second;
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  ::resched::v1::Resched::Stub& stub() { return *stub_; }

 private:
  const std::map<int, ::resched::v1::SubmitJobResponse> answers_;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<::resched::v1::Resched::Stub> stub_;
};

}  // namespace resched::bench
