// `hugetune apply` and `hugetune rollback`: edit the boot loader configuration of a target
// (the machine, or a tree under another root), keep a ledger, and rebuild the boot entries.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tuner/boot/boot_change.hpp"
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

// What apply or rollback did, for `--json`. Filled as the steps happen, so that after a
// failure it holds what was planned and done up to it.
struct BootOutcome {
    std::string setting;  // hugepage_alloc_threads=N
    std::string bootloader;
    std::vector<std::string> notes;
    std::vector<std::string> warnings;
    std::vector<std::string> files;  // target paths written, or (dry run) that would be
    std::vector<Argv> commands;      // the rebuild commands planned
    std::vector<Argv> not_run;       // of those, the ones not run
    bool written = false;            // every file and the ledger were written
    std::optional<Ledger> ledger;    // apply: the ledger written; rollback: the one undone
    std::optional<std::string> not_reached;
};

// Output for the user: results on `out`, notes and warnings on `err`; `outcome`, when given,
// receives the same as data. Throws the typed errors of errors.hpp. Returns the exit code.
// Both hold the boot configuration lock (boot_lock.hpp) while they write.
int apply_boot_parameter(const ApplyRequest& request, std::ostream& out, std::ostream& err,
                         BootOutcome* outcome = nullptr);
// `force`: put back the value from before apply also over a value someone set since.
int rollback_boot_parameter(const TargetOptions& target, bool force, std::ostream& out,
                            std::ostream& err, BootOutcome* outcome = nullptr);
// The planned part of a change into `outcome`.
void record_plan(const BootChange& change, BootOutcome& outcome);

}  // namespace hugetune::boot
