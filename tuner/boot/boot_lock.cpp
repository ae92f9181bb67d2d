#include "tuner/boot/boot_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "model/errors.hpp"
#include "tuner/system/test_hold.hpp"

namespace hugetune::boot {

namespace fs = std::filesystem;

namespace {

// Under another root the root directory itself, so a tree gathered for a test or an image gets
// no file of ours.
fs::path lock_target(const KernelFs& root) {
    return root.is_live() ? kBootLockPath : root.root();
}

FileLock held(std::optional<FileLock> lock, const KernelFs& root) {
    if (lock)
        return std::move(*lock);
    throw BusyError(
        "another hugetune apply or rollback is changing this system's boot configuration: " +
        lock_target(root).string() + " is locked; wait for it to finish and run again");
}

FileLock held_boot_lock(const KernelFs& root) {
    return held(root.is_live() ? FileLock::try_lock(lock_target(root)) : root.root_dir().try_lock(),
                root);
}

bool lock_file_exists() {
    return access(kBootLockPath.c_str(), F_OK) == 0;
}

}  // namespace

BootConfigLock::BootConfigLock(const KernelFs& root) : lock_(held_boot_lock(root)) {}

BootOutcome run_boot_steps_locked(const TargetOptions& target, const BootSteps& steps) {
    // A root other than "/" is never the running machine (`--root /` is refused).
    const bool unlocked = target.dry_run && target.root == "/" && !lock_file_exists();
    BootOutcome outcome = run_boot_steps(steps);
    if (!unlocked)
        return outcome;
    test_hold_point(kHoldDryRunRead);
    return lock_file_exists() ? run_boot_steps(steps) : outcome;
}

std::optional<BootConfigLock> BootConfigLock::for_dry_run(const KernelFs& root) {
    if (!root.is_live())
        return BootConfigLock(held(root.root_dir().try_lock(), root));
    const int fd = open(kBootLockPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return std::nullopt;
    return BootConfigLock(held(FileLock::try_lock_descriptor(fd, kBootLockPath), root));
}

}  // namespace hugetune::boot
