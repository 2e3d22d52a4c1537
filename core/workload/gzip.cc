#include "core/workload/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"

namespace resched {
namespace {

constexpr std::size_t kChunk = std::size_t{256} << 10;
// windowBits 15 with +32: let zlib detect a gzip or zlib header.
constexpr int kWindowBitsAutoDetect = 15 + 32;

class Inflater {
 public:
  Inflater() { ok_ = inflateInit2(&stream_, kWindowBitsAutoDetect) == Z_OK; }
  ~Inflater() {
    if (ok_) inflateEnd(&stream_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  bool ok() const { return ok_; }
  z_stream& stream() { return stream_; }

 private:
  z_stream stream_{};
  bool ok_ = false;
};

bool AllZero(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == '\0'; });
}

}  // namespace

bool LooksGzipped(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

absl::StatusOr<std::string> Gunzip(std::string_view compressed, std::size_t max_output) {
  Inflater inflater;
  if (!inflater.ok()) return absl::InternalError("gunzip: zlib inflateInit2 failed");
  z_stream& zs = inflater.stream();

  std::string out;
  std::size_t consumed = 0;  // input bytes handed to zlib and used
  std::size_t member_start = 0;
  bool in_member = true;
  while (true) {
    if (!in_member) {
      // A member ended: another one may follow (multi-member files, `cat a.gz b.gz`). Padding of
      // zero bytes after the last member is accepted, as gunzip does.
      const std::string_view rest = compressed.substr(consumed);
      if (rest.empty() || AllZero(rest)) break;
      if (!LooksGzipped(rest)) {
        return absl::InvalidArgumentError(
            absl::StrCat("gunzip: trailing data that is not a gzip member at byte ", consumed));
      }
      if (inflateReset(&zs) != Z_OK) return absl::InternalError("gunzip: inflateReset failed");
      member_start = consumed;
      in_member = true;
    }
    // avail_in is 32-bit: feed large inputs in slices.
    const std::size_t in_left = compressed.size() - consumed;
    const std::size_t in_now = std::min<std::size_t>(in_left, std::numeric_limits<uInt>::max() / 2);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + consumed));
    zs.avail_in = static_cast<uInt>(in_now);

    const std::size_t old_size = out.size();
    const std::size_t room = max_output - std::min(max_output, old_size);
    // One byte beyond the limit tells "exactly at the limit" from "over it".
    const std::size_t grow = std::min(kChunk, room + 1);
    out.resize(old_size + grow);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + old_size);
    zs.avail_out = static_cast<uInt>(grow);

    const int rc = inflate(&zs, Z_NO_FLUSH);
    consumed += in_now - zs.avail_in;
    out.resize(old_size + (grow - zs.avail_out));
    if (out.size() > max_output) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "gunzip: the decompressed data exceeds the limit of ", max_output, " bytes"));
    }
    if (rc == Z_STREAM_END) {
      in_member = false;
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_out != 0) {
      // No progress possible with output room left: the input ended inside a member.
      return absl::InvalidArgumentError(
          absl::StrCat("gunzip: truncated gzip data (the member starting at byte ", member_start,
                       " ends early, at byte ", consumed, ")"));
    }
    if (rc == Z_BUF_ERROR) continue;  // output full; loop to give more room
    return absl::InvalidArgumentError(absl::StrCat("gunzip: corrupt gzip data near byte ", consumed,
                                                   ": ",
                                                   zs.msg != nullptr ? zs.msg : "inflate error"));
  }
  return out;
}

absl::StatusOr<std::string> ReadMaybeGzipped(std::istream& in, std::size_t max_output) {
  std::string raw;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    raw.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (raw.size() > max_output) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the input exceeds the limit of ", max_output, " bytes"));
    }
  }
  if (in.bad()) return absl::DataLossError("reading the input stream failed");
  if (!LooksGzipped(raw)) return raw;
  return Gunzip(raw, max_output);
}

}  // namespace resched
