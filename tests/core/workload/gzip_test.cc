#include "core/workload/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <sstream>
#include <string>

#include "tests/testing/status.h"

namespace resched {
namespace {

// gzip format (windowBits 15 + 16), as gzip(1) writes it.
std::string GzipCompress(const std::string& data, int level = Z_DEFAULT_COMPRESSION) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// zlib format, via compress2.
std::string ZlibCompress(const std::string& data) {
  uLongf size = compressBound(data.size());
  std::string out(size, '\0');
  EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                      reinterpret_cast<const Bytef*>(data.data()), data.size(), 9),
            Z_OK);
  out.resize(size);
  return out;
}

std::string SampleText(int lines) {
  std::string text = "; Version: 2.2\n";
  for (int i = 0; i < lines; ++i) {
    text += std::to_string(i) + " " + std::to_string(i * 37 % 1000) + " 0 10 2 -1 -1\n";
  }
  return text;
}

TEST(GzipTest, RoundTripsWhatZlibCompressed) {
  const std::string text = SampleText(50000);  // ~1 MB: several output chunks
  const std::string gz = GzipCompress(text);
  EXPECT_TRUE(LooksGzipped(gz));
  EXPECT_FALSE(LooksGzipped(text));
  EXPECT_FALSE(LooksGzipped(""));
  absl::StatusOr<std::string> out = Gunzip(gz);
  ASSERT_OK(out);
  EXPECT_EQ(*out, text);
  // Headers are auto-detected: zlib streams decode too.
  out = Gunzip(ZlibCompress(text));
  ASSERT_OK(out);
  EXPECT_EQ(*out, text);
}

TEST(GzipTest, EmptyPayload) {
  absl::StatusOr<std::string> out = Gunzip(GzipCompress(""));
  ASSERT_OK(out);
  EXPECT_EQ(*out, "");
}

TEST(GzipTest, DecodesEveryMember) {
  const std::string a = SampleText(100), b = "second member\n", c = SampleText(7);
  absl::StatusOr<std::string> out =
      Gunzip(GzipCompress(a) + GzipCompress(b, 1) + GzipCompress(c) + std::string(8, '\0'));
  ASSERT_OK(out);
  EXPECT_EQ(*out, a + b + c);
}

TEST(GzipTest, RejectsTruncatedCorruptAndTrailingData) {
  const std::string gz = GzipCompress(SampleText(1000));
  absl::Status s = Gunzip(gz.substr(0, gz.size() / 2)).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s.message();

  std::string corrupt = gz;
  for (std::size_t i = 20; i < 60; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  s = Gunzip(corrupt).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;

  s = Gunzip(gz + "junk").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("at byte " + std::to_string(gz.size())), std::string::npos)
      << s.message();

  EXPECT_EQ(Gunzip("").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Gunzip("plain text, not compressed").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(GzipTest, BoundsTheOutput) {
  const std::string text(1 << 20, 'a');  // compresses ~1000:1
  const std::string gz = GzipCompress(text);
  absl::Status s = Gunzip(gz, text.size() - 1).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find(std::to_string(text.size() - 1)), std::string::npos);
  absl::StatusOr<std::string> exact = Gunzip(gz, text.size());
  ASSERT_OK(exact);
  EXPECT_EQ(exact->size(), text.size());
}

TEST(GzipTest, DamagedInputNeverCrashes) {
  const std::string gz = GzipCompress(SampleText(2000));
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200; ++round) {
    std::string damaged = gz;
    for (int flips = 0; flips < 4; ++flips) {
      // Spare the magic bytes so that zlib, not the header check, meets the damage.
      damaged[2 + rng() % (damaged.size() - 2)] ^= static_cast<char>(1 + rng() % 255);
    }
    const absl::StatusOr<std::string> out = Gunzip(damaged, 1 << 20);
    if (!out.ok()) {
      EXPECT_TRUE(out.status().code() == absl::StatusCode::kInvalidArgument ||
                  out.status().code() == absl::StatusCode::kResourceExhausted)
          << out.status();
    }
  }
}

TEST(GzipTest, ReadMaybeGzippedHandlesBoth) {
  const std::string text = SampleText(300);
  std::istringstream plain(text), compressed(GzipCompress(text));
  absl::StatusOr<std::string> a = ReadMaybeGzipped(plain);
  absl::StatusOr<std::string> b = ReadMaybeGzipped(compressed);
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_EQ(*a, text);
  EXPECT_EQ(*b, text);
  std::istringstream big(text);
  EXPECT_EQ(ReadMaybeGzipped(big, 100).status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace resched
