// `hugetune apply` and `hugetune rollback`: edit the boot loader configuration of a target
// (the machine, or a tree under another root), keep a ledger, and rebuild the boot entries.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/boot/boot_change.hpp"
#include "tuner/boot/boot_outcome.hpp"
#include "tuner/boot/ledger.hpp"
#include "tuner/kernel/kernel_fs.hpp"

namespace hugetune::boot {

struct ApplyRequest {
    TargetOptions target;
    std::string value;                          // validated: 1..kMaxAllocThreads
    std::optional<std::string> kernel_release;  // of the measured machine (the report)
    std::vector<std::string> forced;            // why the report was unfit, when applied anyway
};

struct ApplyPlan {
    Detection bootloader;
    BootChange change;
    std::string next_cmdline;  // what a normal boot entry gets once the change is in place
    // Why the next boot will not get the value though every planned file is written (no boot
    // entry of this installation to edit); nothing when it will.
    std::optional<std::string> not_reached;
    // ostree: the default deployment's entry and the value it had, when rpm-ostree changes it.
    std::optional<LedgerBlsEntry> ostree_deployment;
};

// Reads the configuration under `root` and plans the edits; writes nothing. Before planning any,
// refuses (UsageError) what could still give the kernel another value: tuned's command line,
// a part of the grub files it cannot evaluate, a grub variable in a command line that holds
// the parameter or whose value it cannot read. Throws SettingError("bootloader", ...) when the
// chosen boot loader's file does not exist or the system is ostree, and the typed errors of
// the readers and parsers.
ApplyPlan plan_apply(const ApplyRequest& request, const KernelFs& root);

// The ledger after applying `plan`: an entry per planned file (with its backup, one per file
// in the same order), the entries of `previous` whose files still hold what hugetune wrote, and
// the boot entries' values before grubby changes them.
Ledger ledger_after_apply(const ApplyRequest& request, const ApplyPlan& plan,
                          const std::vector<std::string>& backups,
                          const std::optional<Ledger>& previous, const KernelFs& root);

// Both hold the boot configuration lock (boot_lock.hpp) while they write, and write through one
// Effects (tuner/system/effects.hpp), which --dry-run turns into the plan they print: each file's
// diff and the commands that would run. The outcome holds what happened, the lines to print
// (results, notes and warnings) and the typed error of errors.hpp that stopped it, if any.
BootOutcome apply_boot_parameter(const ApplyRequest& request);
// `force`: put back the value from before apply also over a value someone set since.
BootOutcome rollback_boot_parameter(const TargetOptions& target, bool force);

}  // namespace hugetune::boot
