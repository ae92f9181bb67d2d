// The plan of `hugetune rollback`: from the ledger and the files as they are now, what to
// write back and which commands rebuild the boot entries (the entry point is in apply.hpp).
#pragma once

#include <optional>
#include <string>

#include "tuner/boot/boot_change.hpp"
#include "tuner/boot/ledger.hpp"
#include "tuner/kernel/kernel_fs.hpp"

namespace hugetune::boot {

struct RollbackPlan {
    Bootloader bootloader = Bootloader::grub;
    // Files back to their original bytes, or, where someone edited a file since, the previous
    // value put back in place (with a warning).
    BootChange change;
    // hugepage_alloc_threads= in the grub files before the first apply (nothing: none).
    std::optional<std::string> grub_previous_value;
};

// Reads the files under `root`; writes nothing. Throws RuntimeError when an edited file's
// previous value cannot be written back safely, and UsageError when a file changed since apply
// now gives the kernel another value than apply wrote (someone set their own): rollback would
// put the previous value over theirs. `force` puts it back anyway, with a warning that names it
// as `words` does.
RollbackPlan plan_rollback(const Ledger& ledger, const KernelFs& root, bool force = false,
                           const SettingWords& words = {});

}  // namespace hugetune::boot
