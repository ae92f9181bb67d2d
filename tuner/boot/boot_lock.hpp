// One apply or rollback at a time per system: two at once would interleave their backups,
// writes and ledger. The sweep's lock (tuner/sweep/pool_state.hpp RunLock) guards the pools,
// this one the boot configuration; an apply may run beside a sweep.
#pragma once

#include <filesystem>

#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/system/file_lock.hpp"

namespace hugetune::boot {

// On the running machine: /run/hugetune/boot.lock (flock). Under another root: the root
// directory itself, so a tree gathered for a test or an image gets no file of ours.
inline const std::filesystem::path kBootLockPath = "/run/hugetune/boot.lock";

class BootConfigLock {
  public:
    // Throws BusyError when another process holds it, RuntimeError when it cannot be opened.
    explicit BootConfigLock(const KernelFs& root);

  private:
    FileLock lock_;
};

}  // namespace hugetune::boot
