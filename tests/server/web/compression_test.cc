// gzip for the web view's JSON answers: which Accept-Encoding values take it, and that what
// GzipFast writes is gzip that decompresses (core's Gunzip, zlib's inflate) to the input.
#include "server/web/compression.h"

#include <random>
#include <string>

#include "core/workload/gzip.h"
#include "gtest/gtest.h"

namespace resched::server::web {
namespace {

TEST(AcceptsGzip, TakesGzipOrAnyCodingUnlessRefusedWithQZero) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("gzip, deflate, br"));
  EXPECT_TRUE(AcceptsGzip("br;q=1.0, GZip;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_TRUE(AcceptsGzip("identity, *;q=0.1"));
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("br, deflate"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip; q=0.000"));
  EXPECT_FALSE(AcceptsGzip("x-gzip"));
}

TEST(GzipFast, DecompressesToItsInput) {
  std::mt19937_64 rng(3);
  for (const std::size_t size : {0, 1, 1000, 100'000, 3'000'000}) {
    std::string data(size, '\0');
    // Half text that repeats, half noise: both the matcher and the literals are exercised.
    for (std::size_t i = 0; i < size; ++i) {
      data[i] = i % 2 == 0 ? "{\"jobs\":[]}"[i % 11] : static_cast<char>(rng());
    }
    const std::optional<std::string> gzipped = GzipFast(data);
    ASSERT_TRUE(gzipped.has_value()) << size;
    EXPECT_TRUE(LooksGzipped(*gzipped)) << size;
    const absl::StatusOr<std::string> back = Gunzip(*gzipped);
    ASSERT_TRUE(back.ok()) << size << ": " << back.status();
    EXPECT_EQ(*back, data) << size;
  }
}

}  // namespace
}  // namespace resched::server::web
