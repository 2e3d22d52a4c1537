// An allocator for the timeline's node pools: blocks of 2 MiB and more are 2 MiB-aligned and
// advised as transparent huge pages, so that a search over millions of breakpoints does not
// pay a page walk on top of each cache miss. Debian's default THP mode is "madvise": without
// the advice the pools stay on 4 KiB pages. Smaller blocks come from std::allocator.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace resched {

template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  // NOLINTNEXTLINE(google-explicit-constructor): allocators convert implicitly between types
  HugePageAllocator(const HugePageAllocator<U>& /*other*/) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) {
      return std::allocator<T>().allocate(n);
    }
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw std::bad_alloc();
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: on failure the pages stay small
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kHugePage) {
      std::allocator<T>().deallocate(p, n);
    } else {
      std::free(p);
    }
  }

  template <typename U>
  bool operator==(const HugePageAllocator<U>& /*other*/) const {
    return true;
  }

 private:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
};

}  // namespace resched
