#include "server/store/wal_scan.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"

namespace resched::server {
namespace {

constexpr std::uint32_t kMagicLittleEndian = 0x377f0682;
constexpr std::uint32_t kMagicBigEndian = 0x377f0683;
constexpr std::size_t kHeaderBytes = 32;
constexpr std::size_t kFrameHeaderBytes = 24;

std::uint32_t BigEndian32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

std::uint32_t LittleEndian32(const unsigned char* p) {
  return (std::uint32_t{p[3]} << 24) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[1]} << 8) |
         std::uint32_t{p[0]};
}

// The log's running checksum: over 32-bit words in the byte order the magic number names, two
// words at a time (the format's s0 += x(i) + s1; s1 += x(i+1) + s0).
struct RunningChecksum {
  bool big_endian = false;
  std::uint32_t s0 = 0;
  std::uint32_t s1 = 0;
  void Add(const unsigned char* data, std::size_t bytes) {
    for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
      const std::uint32_t x0 = big_endian ? BigEndian32(data + i) : LittleEndian32(data + i);
      const std::uint32_t x1 =
          big_endian ? BigEndian32(data + i + 4) : LittleEndian32(data + i + 4);
      s0 += x0 + s1;
      s1 += x1 + s0;
    }
  }
};

}  // namespace

absl::StatusOr<std::optional<WalScan>> ScanWal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::nullopt;
    return absl::UnavailableError(absl::StrCat(path, " cannot be read: ", std::strerror(errno)));
  }
  const std::vector<unsigned char> log((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>());
  if (log.empty()) return std::nullopt;
  WalScan scan;
  scan.bytes = static_cast<std::int64_t>(log.size());
  if (log.size() < kHeaderBytes) return scan;  // a header never written whole holds nothing
  const unsigned char* header = log.data();
  const std::uint32_t magic = BigEndian32(header);
  scan.page_size = BigEndian32(header + 8);
  RunningChecksum chain{magic == kMagicBigEndian};
  chain.Add(header, 24);
  const bool header_ok = (magic == kMagicLittleEndian || magic == kMagicBigEndian) &&
                         scan.page_size >= 512 && scan.page_size <= 65536 &&
                         chain.s0 == BigEndian32(header + 24) &&
                         chain.s1 == BigEndian32(header + 28);
  if (!header_ok) {
    scan.damaged_header = log.size() > kHeaderBytes;
    return scan;
  }
  const std::uint32_t salt1 = BigEndian32(header + 16);
  const std::uint32_t salt2 = BigEndian32(header + 20);
  const std::size_t frame = kFrameHeaderBytes + static_cast<std::size_t>(scan.page_size);
  bool chain_holds = true;
  std::int64_t frames_in_chain = 0;
  std::size_t offset = kHeaderBytes;
  std::size_t index = 0;
  for (; offset + frame <= log.size(); offset += frame, ++index) {
    const unsigned char* f = log.data() + offset;
    const bool this_generation = BigEndian32(f + 8) == salt1 && BigEndian32(f + 12) == salt2;
    const bool commit = BigEndian32(f + 4) != 0;
    if (chain_holds) {
      RunningChecksum next = chain;
      next.Add(f, 8);
      next.Add(f + kFrameHeaderBytes, static_cast<std::size_t>(scan.page_size));
      if (this_generation && BigEndian32(f) != 0 && next.s0 == BigEndian32(f + 16) &&
          next.s1 == BigEndian32(f + 20)) {
        chain = next;
        ++frames_in_chain;
        if (commit) {
          scan.kept_frames = frames_in_chain;
          ++scan.kept_commits;
        }
        continue;
      }
      chain_holds = false;
    }
    // Past the chain: what SQLite drops. Frames of another generation are an older log's,
    // overwritten in part by this one, and hold nothing of this log's.
    if (!this_generation) continue;
    if (!scan.first_dropped_frame) {
      scan.first_dropped_frame = static_cast<std::int64_t>(index);
      scan.first_dropped_offset = static_cast<std::int64_t>(offset);
    } else if (commit) {
      ++scan.dropped_commits;
    }
    ++scan.dropped_frames;
  }
  // A frame cut short at the end of the file: the write a crash interrupted, when its header
  // says it is of this generation.
  if (offset + 16 <= log.size()) {
    const unsigned char* f = log.data() + offset;
    if (BigEndian32(f + 8) == salt1 && BigEndian32(f + 12) == salt2) {
      if (!scan.first_dropped_frame && frames_in_chain == scan.kept_frames) {
        scan.first_dropped_frame = static_cast<std::int64_t>(index);
        scan.first_dropped_offset = static_cast<std::int64_t>(offset);
      }
      ++scan.dropped_frames;
    }
  }
  // Frames of the chain after its last commit belong to a commit that never finished.
  if (frames_in_chain > scan.kept_frames && !scan.first_dropped_frame) {
    scan.first_dropped_frame = scan.kept_frames;
    scan.first_dropped_offset =
        static_cast<std::int64_t>(kHeaderBytes) + scan.kept_frames * scan.frame_bytes();
  }
  scan.dropped_frames += frames_in_chain - scan.kept_frames;
  return scan;
}

}  // namespace resched::server
