#include "client/rpc_error.h"

#include <gtest/gtest.h>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "resched/v1/service.pb.h"

namespace resched::cli {
namespace {

grpc::Status WithDetails(grpc::StatusCode code, const std::string& message,
                         const std::vector<const google::protobuf::Message*>& details) {
  google::rpc::Status st;
  st.set_code(code);
  st.set_message(message);
  for (const auto* d : details) st.add_details()->PackFrom(*d);
  return grpc::Status(code, message, st.SerializeAsString());
}

TEST(FormatRpcError, CodeAndMessage) {
  EXPECT_EQ(FormatRpcError(grpc::Status(grpc::NOT_FOUND, "no cluster \"x\"")),
            "error: NOT_FOUND: no cluster \"x\"\n");
  EXPECT_EQ(StatusCodeName(grpc::FAILED_PRECONDITION), "FAILED_PRECONDITION");
}

TEST(FormatRpcError, FieldViolationsOnePerLine) {
  google::rpc::BadRequest bad;
  auto* v = bad.add_field_violations();
  v->set_field("job.weight");
  v->set_description("must be > 0, got -1");
  v = bad.add_field_violations();
  v->set_field("job.model.rigid.k");
  v->set_description("job.model.rigid.k must be in [1, 64], got 0");
  v = bad.add_field_violations();
  v->set_description("too many fields");
  EXPECT_EQ(FormatRpcError(WithDetails(grpc::INVALID_ARGUMENT, "invalid job", {&bad})),
            "error: INVALID_ARGUMENT: invalid job\n"
            "  job.weight: must be > 0, got -1\n"
            "  job.model.rigid.k must be in [1, 64], got 0\n"
            "  too many fields\n");
}

TEST(FormatRpcError, OtherDetailsAreNamed) {
  resched::v1::SubmitJobResponse first;
  EXPECT_EQ(FormatRpcError(WithDetails(grpc::ALREADY_EXISTS, "request id seen", {&first})),
            "error: ALREADY_EXISTS: request id seen\n"
            "  (detail attached: type.googleapis.com/resched.v1.SubmitJobResponse)\n");
  // Details that are not a google.rpc.Status are ignored.
  EXPECT_EQ(FormatRpcError(grpc::Status(grpc::INTERNAL, "boom", "\xff\xff garbage")),
            "error: INTERNAL: boom\n");
}

TEST(FormatRpcError, UnavailableNamesTheServer) {
  EXPECT_EQ(FormatRpcError(grpc::Status(grpc::UNAVAILABLE, "connection refused"), "host:1"),
            "error: UNAVAILABLE: connection refused\n"
            "  (is resched-server running at host:1? choose another with --server or "
            "RESCHED_SERVER)\n");
}

}  // namespace
}  // namespace resched::cli
