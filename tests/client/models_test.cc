#include "client/models.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "tests/testing/status.h"

namespace resched::cli {
namespace {

using resched::v1::RuntimeModel;

RuntimeModel ModelText(const std::string& text) {
  RuntimeModel m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m)) << text;
  return m;
}

void ExpectModel(absl::string_view flag, absl::string_view value, const std::string& expected) {
  RuntimeModel m;
  absl::Status st = ParseModelFlag(flag, value, &m);
  ASSERT_OK(st) << flag << " " << value << ": " << st;
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(m, ModelText(expected)))
      << m.ShortDebugString();
}

TEST(ParseModelFlag, EveryKind) {
  ExpectModel("rigid", "4:1h", "rigid { k: 4 time { seconds: 3600 } }");
  ExpectModel("amdahl", "2h:0.1", "amdahl { t1 { seconds: 7200 } alpha: 0.1 }");
  ExpectModel("amdahl", "90s:0.25:2:16",
              "amdahl { t1 { seconds: 90 } alpha: 0.25 k_min: 2 k_max: 16 }");
  ExpectModel("downey", "1h:16:0.5", "downey { t1 { seconds: 3600 } a: 16 sigma: 0.5 }");
  ExpectModel("downey", "1h:16:0.5:1:32",
              "downey { t1 { seconds: 3600 } a: 16 sigma: 0.5 k_min: 1 k_max: 32 }");
  ExpectModel("table", "1:4h,2:2h30m,4:250ms",
              "table { entries { k: 1 time { seconds: 14400 } } "
              "entries { k: 2 time { seconds: 9000 } } "
              "entries { k: 4 time { nanos: 250000000 } } }");
  ExpectModel("pow2", "1h,40m,25m",
              "power_of_two { times { seconds: 3600 } times { seconds: 2400 } "
              "times { seconds: 1500 } }");
  ExpectModel("ceil", "8:30m", "ceil { req_procs: 8 req_time { seconds: 1800 } }");
}

TEST(ParseModelFlag, ValuesAreLeftToTheServer) {
  // Only the syntax is checked: a zero width is the server's INVALID_ARGUMENT to give.
  ExpectModel("rigid", "0:1h", "rigid { k: 0 time { seconds: 3600 } }");
  ExpectModel("amdahl", "1h:1.5", "amdahl { t1 { seconds: 3600 } alpha: 1.5 }");
}

TEST(ParseModelFlag, SyntaxErrors) {
  RuntimeModel m;
  auto error = [&](absl::string_view flag, absl::string_view value) {
    absl::Status st = ParseModelFlag(flag, value, &m);
    EXPECT_FALSE(st.ok()) << flag << " " << value;
    return std::string(st.message());
  };
  EXPECT_EQ(error("rigid", "4"), "--rigid 4: expected K:DURATION, e.g. 4:1h");
  EXPECT_EQ(error("rigid", "x:1h"), "--rigid x:1h: K \"x\" is not an integer");
  EXPECT_NE(error("rigid", "4:1y").find("invalid duration \"1y\""), std::string::npos);
  EXPECT_EQ(error("amdahl", "1h:a"), "--amdahl 1h:a: ALPHA \"a\" is not a number");
  EXPECT_EQ(error("amdahl", "1h:0.1:1:2:3"),
            "--amdahl 1h:0.1:1:2:3: expected T1:ALPHA[:KMIN[:KMAX]], e.g. 2h:0.1");
  EXPECT_EQ(error("downey", "1h:2:0:z"), "--downey 1h:2:0:z: KMIN \"z\" is not an integer");
  EXPECT_NE(error("table", "1:1h,2").find("expected K:DURATION,K:DURATION"), std::string::npos);
  EXPECT_NE(error("pow2", "1h,,2h").find("invalid duration"), std::string::npos);
  EXPECT_NE(error("ceil", "8").find("expected REQPROCS:DURATION"), std::string::npos);
  EXPECT_EQ(error("bogus", "1"), "unknown model flag --bogus");
}

TEST(DescribeModel, OneLine) {
  EXPECT_EQ(DescribeModel(ModelText("rigid { k: 4 time { seconds: 3600 } }")), "rigid k=4 t=1h");
  EXPECT_EQ(DescribeModel(ModelText("amdahl { t1 { seconds: 7200 } alpha: 0.1 }")),
            "amdahl t1=2h alpha=0.1 k=1..P");
  EXPECT_EQ(
      DescribeModel(ModelText("downey { t1 { seconds: 60 } a: 8 sigma: 1 k_min: 2 k_max: 8 }")),
      "downey t1=1m A=8 sigma=1 k=2..8");
  EXPECT_EQ(DescribeModel(ModelText("table { entries { k: 1 time { seconds: 10 } } "
                                    "entries { k: 2 time { seconds: 6 } } }")),
            "table 1:10s,2:6s");
  EXPECT_EQ(DescribeModel(ModelText("power_of_two { times { seconds: 10 } times { seconds: 6 } }")),
            "pow2 10s,6s");
  EXPECT_EQ(DescribeModel(ModelText("ceil { req_procs: 8 req_time { seconds: 1800 } }")),
            "ceil req_procs=8 req_time=30m");
  EXPECT_EQ(DescribeModel(RuntimeModel()), "-");
}

}  // namespace
}  // namespace resched::cli
