#include "core/workload/swf.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/testing/status.h"

namespace resched {
namespace {

// Every field of the first record is distinct so that a field mix-up shows.
constexpr char kLog[] =
    "; Version: 2.2\n"
    "; Computer: Test Machine\n"
    "; Information: http://example.org/\n"
    ";              http://www.cs.huji.ac.il/labs/parallel/workload/\n"
    ";\n"
    "; UnixStartTime: 820090437\n"
    "; MaxNodes: 64 (48 batch, 16 interactive)\n"
    "; MaxProcs: 128\n"
    "; Note: first note\n"
    "; Note: second note\n"
    "    1      100     20     300   16 142.00   2048   32    600   4096  1   "
    "7   3   9  2  4 -1 -1\n"
    "\n"
    "    2      250     -1      -1   -1     -1     -1   -1     -1     -1 -1  "
    "-1  -1  -1 -1 -1  1 30\n"
    "    3      260      0      45    4  44.5    1.25    4     60     -1  5   "
    "8   3   9  2  4 -1 -1\n";

SwfLog MustRead(const std::string& text, const SwfReadOptions& options = {}) {
  std::istringstream in(text);
  absl::StatusOr<SwfLog> log = ReadSwf(in, options);
  EXPECT_OK(log);
  return log.ok() ? *std::move(log) : SwfLog{};
}

absl::Status ReadError(const std::string& text) {
  std::istringstream in(text);
  return ReadSwf(in).status();
}

std::vector<std::vector<std::string>> DataTokens(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::string> tokens;
    std::string token;
    while (fields >> token) tokens.push_back(token);
    if (!tokens.empty() && tokens[0][0] != ';') lines.push_back(tokens);
  }
  return lines;
}

TEST(SwfTest, ParsesAllEighteenFields) {
  const SwfLog log = MustRead(kLog);
  ASSERT_EQ(log.records.size(), 3u);
  const SwfRecord& r = log.records[0];
  EXPECT_EQ(r.job_number, 1);
  EXPECT_EQ(r.submit_time, 100);
  EXPECT_EQ(r.wait_time, 20);
  EXPECT_EQ(r.run_time, 300);
  EXPECT_EQ(r.allocated_processors, 16);
  EXPECT_DOUBLE_EQ(r.average_cpu_time, 142.0);
  EXPECT_EQ(r.average_cpu_time_decimals, 2);
  EXPECT_DOUBLE_EQ(r.used_memory, 2048);
  EXPECT_EQ(r.requested_processors, 32);
  EXPECT_EQ(r.requested_time, 600);
  EXPECT_EQ(r.requested_memory, 4096);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.user_id, 7);
  EXPECT_EQ(r.group_id, 3);
  EXPECT_EQ(r.executable, 9);
  EXPECT_EQ(r.queue, 2);
  EXPECT_EQ(r.partition, 4);
  EXPECT_EQ(r.preceding_job, -1);
  EXPECT_EQ(r.think_time, -1);
  // Unknown values stay -1.
  const SwfRecord& unknown = log.records[1];
  EXPECT_EQ(unknown.run_time, -1);
  EXPECT_EQ(unknown.average_cpu_time, -1);
  EXPECT_EQ(unknown.preceding_job, 1);
  EXPECT_EQ(unknown.think_time, 30);
  EXPECT_DOUBLE_EQ(log.records[2].used_memory, 1.25);
  EXPECT_STREQ(SwfFieldName(4), "run time");
  EXPECT_STREQ(SwfFieldName(18), "think time");
}

TEST(SwfTest, KeepsCommentsAndParsesHeaderKeys) {
  const SwfLog log = MustRead(kLog);
  ASSERT_EQ(log.comments.size(), 10u);
  EXPECT_EQ(log.comments[3], ";              http://www.cs.huji.ac.il/labs/parallel/workload/");
  EXPECT_EQ(log.comments[4], ";");
  EXPECT_EQ(log.HeaderValue("Version"), "2.2");
  EXPECT_EQ(log.HeaderValue("Computer"), "Test Machine");
  EXPECT_EQ(log.HeaderValue("Information"), "http://example.org/");
  EXPECT_EQ(log.HeaderInt("MaxProcs"), 128);
  EXPECT_EQ(log.HeaderInt("MaxNodes"),
            64);  // the leading integer of "64 (48 batch, ...)"
  EXPECT_EQ(log.HeaderInt("UnixStartTime"), 820090437);
  EXPECT_EQ(log.HeaderValue("Note"),
            "first note");                            // the first of repeated keys
  EXPECT_FALSE(log.HeaderValue("http").has_value());  // continuation lines are not keys
  EXPECT_FALSE(log.HeaderInt("Computer").has_value());
  int notes = 0;
  for (const auto& [key, value] : log.header_fields) notes += key == "Note";
  EXPECT_EQ(notes, 2);
}

TEST(SwfTest, RoundTripKeepsHeaderAndValues) {
  const SwfLog log = MustRead(kLog);
  std::ostringstream out;
  ASSERT_OK(WriteSwf(out, log));
  // Every value token is reproduced byte for byte ("142.00", "44.5", "1.25", "-1").
  EXPECT_EQ(DataTokens(out.str()), DataTokens(kLog));
  EXPECT_NE(out.str().find("; MaxNodes: 64 (48 batch, 16 interactive)\n"), std::string::npos);
  const SwfLog again = MustRead(out.str());
  EXPECT_EQ(again.comments, log.comments);
  EXPECT_EQ(again.header_fields, log.header_fields);
  EXPECT_EQ(again.records, log.records);
}

TEST(SwfTest, ProgrammaticRecordsUseTheShortestExactForm) {
  SwfRecord r;
  r.job_number = 5;
  r.average_cpu_time = 0.1;
  r.used_memory = 3;
  EXPECT_EQ(FormatSwfRecord(r), "5 -1 -1 -1 -1 0.1 3 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1");
}

TEST(SwfTest, AcceptsCrlfAndTabs) {
  const SwfLog log = MustRead(
      "; MaxProcs: "
      "8\r\n1\t0\t0\t10\t2\t-1\t-1\t2\t20\t-"
      "1\t1\t1\t1\t-1\t-1\t-1\t-1\t-1\r\n");
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].run_time, 10);
  EXPECT_EQ(log.comments[0], "; MaxProcs: 8");
  EXPECT_EQ(log.HeaderInt("MaxProcs"), 8);
}

TEST(SwfTest, MalformedLinesNameTheLineAndTheField) {
  const std::string good = "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n";
  absl::Status s = ReadError("; header\n" + good + "2 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "line 3: expected 18 fields, got 17");

  s = ReadError(good + good + "3 0 0 abc 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n");
  EXPECT_EQ(s.message(), "line 3: field 4 (run time) must be an integer, got 'abc'");

  s = ReadError("1 0 0 10 2 x -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n");
  EXPECT_EQ(s.message(), "line 1: field 6 (average CPU time) must be a finite number, got 'x'");

  s = ReadError("1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -5\n");
  EXPECT_EQ(s.message(), "line 1: field 18 (think time) must be >= -1 (-1: unknown), got -5");

  s = ReadError("1 99999999999999999999 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n");
  EXPECT_NE(s.message().find("line 1: field 2 (submit time) is out of range"), std::string::npos)
      << s.message();

  s = ReadError("1 0 0 10.5 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n");
  EXPECT_EQ(s.message(), "line 1: field 4 (run time) must be an integer, got '10.5'");

  s = ReadError("1 0 0 10 2 nan -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);

  std::string too_long(kMaxSwfLineLength + 1, '1');
  too_long += '\n';  // not `+ "\n"`: GCC 12 reports a false -Warray-bounds on that at -O3
  s = ReadError(too_long);
  EXPECT_EQ(s.message(), "line 1: longer than 65536 characters");
}

TEST(SwfTest, LenientModeSkipsAndCountsMalformedLines) {
  const std::string text =
      "; MaxProcs: 4\n"
      "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
      "garbage\n"
      "2 5 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1\n"
      "3 9 0 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n";
  SwfReadOptions options;
  options.lenient = true;
  const SwfLog log = MustRead(text, options);
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[1].job_number, 3);
  EXPECT_EQ(log.malformed_lines, 2);
  ASSERT_EQ(log.malformed_examples.size(), 2u);
  EXPECT_EQ(log.malformed_examples[0], "line 3: expected 18 fields, got 1");
  EXPECT_EQ(log.malformed_examples[1], "line 4: expected 18 fields, got 17");
  // Strict mode stops at the first.
  EXPECT_EQ(ReadError(text).message(), "line 3: expected 18 fields, got 1");
}

TEST(SwfTest, MaxRecordsStopsEarly) {
  SwfReadOptions options;
  options.max_records = 2;
  const SwfLog log = MustRead(kLog, options);
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[1].job_number, 2);
}

TEST(SwfTest, GarbageNeverCrashes) {
  std::mt19937_64 rng(3);
  const std::string alphabet = "0123456789 -.;\t\nxe+";
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const int length = static_cast<int>(rng() % 400);
    for (int i = 0; i < length; ++i) text.push_back(alphabet[rng() % alphabet.size()]);
    std::istringstream strict(text), lenient(text);
    const absl::StatusOr<SwfLog> a = ReadSwf(strict);
    SwfReadOptions options;
    options.lenient = true;
    const absl::StatusOr<SwfLog> b = ReadSwf(lenient, options);
    ASSERT_OK(b);
    if (!a.ok()) {
      EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(a.status().message().substr(0, 5), "line ");
    }
  }
}

}  // namespace
}  // namespace resched
