// A SQLite VFS wrapped around the default one that fails every write with SQLITE_FULL while the
// disk is "full": how a start on a full disk behaves, without filling a disk. Installed as the
// default VFS while an instance lives, so that the journal's own opens go through it; close
// what was opened through it before the instance goes.
#pragma once

#include <sqlite3.h>

#include <atomic>

namespace resched::server::testing {

class FullDiskVfs {
 public:
  FullDiskVfs();
  ~FullDiskVfs();
  FullDiskVfs(const FullDiskVfs&) = delete;
  FullDiskVfs& operator=(const FullDiskVfs&) = delete;

  void SetFull(bool full) { full_.store(full); }
  static bool full() { return full_.load(); }

 private:
  static inline std::atomic<bool> full_{false};
  // Static: a connection opened through it may close after the instance is gone.
  static inline sqlite3_vfs vfs_{};
};

namespace full_disk_detail {

// Our file: the wrapped VFS's file follows it in the same allocation.
struct WrappedFile {
  sqlite3_file base;
  sqlite3_file* real;
};

inline sqlite3_vfs* real_vfs = nullptr;
inline sqlite3_io_methods wrapped_methods{};

inline sqlite3_file* Real(sqlite3_file* file) { return reinterpret_cast<WrappedFile*>(file)->real; }

inline int Write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  if (FullDiskVfs::full()) return SQLITE_FULL;
  return Real(file)->pMethods->xWrite(Real(file), data, amount, offset);
}

inline int Truncate(sqlite3_file* file, sqlite3_int64 size) {
  if (FullDiskVfs::full()) return SQLITE_FULL;
  return Real(file)->pMethods->xTruncate(Real(file), size);
}

inline int Open(sqlite3_vfs* /*vfs*/, const char* name, sqlite3_file* file, int flags,
                int* out_flags) {
  auto* wrapped = reinterpret_cast<WrappedFile*>(file);
  wrapped->real = reinterpret_cast<sqlite3_file*>(wrapped + 1);
  const int rc = real_vfs->xOpen(real_vfs, name, wrapped->real, flags, out_flags);
  wrapped->base.pMethods = rc == SQLITE_OK ? &wrapped_methods : nullptr;
  return rc;
}

}  // namespace full_disk_detail

inline FullDiskVfs::FullDiskVfs() {
  using namespace full_disk_detail;  // NOLINT(google-build-using-namespace)
  real_vfs = sqlite3_vfs_find(nullptr);
  vfs_ = *real_vfs;
  vfs_.zName = "resched-full-disk";
  vfs_.szOsFile = static_cast<int>(sizeof(WrappedFile)) + real_vfs->szOsFile;
  vfs_.xOpen = Open;
  vfs_.pNext = nullptr;
  // The methods of the wrapped VFS's files, with writes and truncations checked first.
  wrapped_methods.iVersion = 3;
  wrapped_methods.xClose = [](sqlite3_file* file) {
    return Real(file)->pMethods->xClose(Real(file));
  };
  wrapped_methods.xRead = [](sqlite3_file* file, void* data, int amount, sqlite3_int64 offset) {
    return Real(file)->pMethods->xRead(Real(file), data, amount, offset);
  };
  wrapped_methods.xWrite = Write;
  wrapped_methods.xTruncate = Truncate;
  wrapped_methods.xSync = [](sqlite3_file* file, int flags) {
    return Real(file)->pMethods->xSync(Real(file), flags);
  };
  wrapped_methods.xFileSize = [](sqlite3_file* file, sqlite3_int64* size) {
    return Real(file)->pMethods->xFileSize(Real(file), size);
  };
  wrapped_methods.xLock = [](sqlite3_file* file, int lock) {
    return Real(file)->pMethods->xLock(Real(file), lock);
  };
  wrapped_methods.xUnlock = [](sqlite3_file* file, int lock) {
    return Real(file)->pMethods->xUnlock(Real(file), lock);
  };
  wrapped_methods.xCheckReservedLock = [](sqlite3_file* file, int* out) {
    return Real(file)->pMethods->xCheckReservedLock(Real(file), out);
  };
  wrapped_methods.xFileControl = [](sqlite3_file* file, int op, void* arg) {
    return Real(file)->pMethods->xFileControl(Real(file), op, arg);
  };
  wrapped_methods.xSectorSize = [](sqlite3_file* file) {
    return Real(file)->pMethods->xSectorSize(Real(file));
  };
  wrapped_methods.xDeviceCharacteristics = [](sqlite3_file* file) {
    return Real(file)->pMethods->xDeviceCharacteristics(Real(file));
  };
  wrapped_methods.xShmMap = [](sqlite3_file* file, int page, int size, int extend,
                               void volatile** out) {
    return Real(file)->pMethods->xShmMap(Real(file), page, size, extend, out);
  };
  wrapped_methods.xShmLock = [](sqlite3_file* file, int offset, int n, int flags) {
    return Real(file)->pMethods->xShmLock(Real(file), offset, n, flags);
  };
  wrapped_methods.xShmBarrier = [](sqlite3_file* file) {
    Real(file)->pMethods->xShmBarrier(Real(file));
  };
  wrapped_methods.xShmUnmap = [](sqlite3_file* file, int remove) {
    return Real(file)->pMethods->xShmUnmap(Real(file), remove);
  };
  wrapped_methods.xFetch = [](sqlite3_file* file, sqlite3_int64 offset, int amount, void** out) {
    return Real(file)->pMethods->xFetch(Real(file), offset, amount, out);
  };
  wrapped_methods.xUnfetch = [](sqlite3_file* file, sqlite3_int64 offset, void* page) {
    return Real(file)->pMethods->xUnfetch(Real(file), offset, page);
  };
  sqlite3_vfs_register(&vfs_, /*makeDflt=*/1);
}

inline FullDiskVfs::~FullDiskVfs() {
  full_.store(false);
  sqlite3_vfs_unregister(&vfs_);
}

}  // namespace resched::server::testing
