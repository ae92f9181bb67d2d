// One apply or rollback at a time per system: two at once would interleave their backups,
// writes and ledger. The sweep's lock (tuner/sweep/pool_state.hpp RunLock) guards the pools,
// this one the boot configuration; an apply may run beside a sweep.
#pragma once

#include <filesystem>
#include <optional>
#include <utility>

#include "tuner/boot/boot_change.hpp"
#include "tuner/boot/boot_outcome.hpp"
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
    // The same for a --dry-run, which reads what a real change beside it would be writing (a
    // ledger with its pending files, half of them written) and would report an interrupted
    // apply. It makes no file: on the running machine, with no lock file yet no apply or rollback
    // ran since boot, and nothing is held.
    static std::optional<BootConfigLock> for_dry_run(const KernelFs& root);

  private:
    explicit BootConfigLock(FileLock lock) : lock_(std::move(lock)) {}
    FileLock lock_;
};

// Runs the steps of an apply or rollback (run_boot_steps), which take BootConfigLock. A dry run
// on the running machine before any apply or rollback since boot finds no lock file and, making
// none, holds nothing; a change that begins beside it creates the file before its first write.
// So when the file is there once the dry run has read, it may have read half of that change: it
// runs again, and then takes the lock (or says the change is running).
BootOutcome run_boot_steps_locked(const TargetOptions& target, const BootSteps& steps);

}  // namespace hugetune::boot
