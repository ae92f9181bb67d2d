#include "tuner/boot/boot_lock.hpp"

#include <string>

#include "model/errors.hpp"

namespace hugetune::boot {

namespace fs = std::filesystem;

namespace {

// Under another root the root directory itself, so a tree gathered for a test or an image gets
// no file of ours.
fs::path lock_target(const KernelFs& root) {
    return root.is_live() ? kBootLockPath : root.root();
}

FileLock held_boot_lock(const KernelFs& root) {
    const fs::path path = lock_target(root);
    auto lock = root.is_live() ? FileLock::try_lock(path) : root.root_dir().try_lock();
    if (lock)
        return std::move(*lock);
    throw BusyError(
        "another hugetune apply or rollback is changing this system's boot configuration: " +
        path.string() + " is locked; wait for it to finish and run again");
}

}  // namespace

BootConfigLock::BootConfigLock(const KernelFs& root) : lock_(held_boot_lock(root)) {}

}  // namespace hugetune::boot
