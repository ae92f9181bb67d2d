#include "tuner/boot/rollback.hpp"

#include <algorithm>
#include <set>

#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/boot/apply.hpp"
#include "tuner/boot/boot_entries.hpp"
#include "tuner/boot/boot_lock.hpp"
#include "tuner/boot/config_file.hpp"
#include "tuner/boot/file_changes.hpp"
#include "tuner/boot/grub_config.hpp"
#include "tuner/boot/grub_files.hpp"
#include "tuner/boot/kernel_cmdline_file.hpp"
#include "tuner/boot/ostree.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot {

namespace {

// Nothing when the file is gone or already holds its original bytes. A file edited by someone
// else since apply gets the previous value back in place instead of losing their change along
// with ours; its grub form is filled in later, over all grub files at once.
std::optional<PlannedFile> plan_restore(const LedgerFile& lf, const KernelFs& root,
                                        std::vector<std::string>& warnings) {
    auto cur = read_config_file(root, lf.path);
    if (!cur) {
        warnings.push_back(lf.path + " no longer exists; not restored");
        return std::nullopt;
    }
    if (cur->text == lf.original)
        return std::nullopt;
    PlannedFile p{*cur, lf.kind, lf.original, lf.previous_value};
    if (cur->text == lf.applied) {
        p.restores_original = true;
        return p;
    }
    p.in_place = true;
    if (lf.previous_value && !is_safe_param_value(*lf.previous_value))
        throw RuntimeError(lf.path +
                           " changed since hugetune applied and the previous "
                           "value '" +
                           *lf.previous_value + "' cannot be written back safely; restore " +
                           lf.backup + " by hand");
    warnings.push_back(lf.path + " changed since hugetune applied; restoring the " +
                       "previous value in place instead of the original bytes");
    if (lf.kind == FileKind::kernel_cmdline)
        p.new_text = edit_kernel_cmdline_text(lf.path, cur->text, lf.previous_value);
    if (lf.kind == FileKind::boot_entry)
        p.new_text = edit_boot_entry_text(lf.path, cur->text, lf.previous_value);
    return p;
}

// The grub files edited since apply get the previous value through one edit over all grub
// files, the ones restored to their original bytes included, so that exactly one token wins.
void plan_grub_in_place(const KernelFs& root, const std::optional<std::string>& previous_value,
                        std::vector<PlannedFile>& files) {
    GrubFiles grub = load_grub(root);
    std::vector<std::string> texts;
    for (const auto& f : grub.files) {
        std::string text = f.text;
        for (const auto& p : files)
            if (p.file.target_path == f.target_path && !p.in_place)
                text = p.new_text;
        texts.push_back(text);
    }
    GrubEdit edit = plan_grub_edit(parse_grub_texts(grub, texts), previous_value);
    for (auto& p : files) {
        if (!p.in_place || p.kind != FileKind::grub)
            continue;
        for (std::size_t i = 0; i < grub.files.size(); ++i)
            if (grub.files[i].target_path == p.file.target_path)
                p.new_text = edit.new_texts[i];
    }
}

// grubby puts back each boot entry's own previous value; one command when they agree.
std::vector<Argv> grubby_rollback_commands(const Ledger& ledger,
                                           const std::optional<std::string>& grub_previous) {
    const auto& entries = ledger.bls_entries;
    if (entries.empty())
        return {grubby_command("ALL", grub_previous)};
    bool same = std::all_of(entries.begin(), entries.end(), [&](const LedgerBlsEntry& e) {
        return e.previous_value == entries.front().previous_value;
    });
    if (same)
        return {grubby_command("ALL", entries.front().previous_value)};
    std::vector<Argv> commands;
    for (const auto& e : entries)
        commands.push_back(grubby_command(e.kernel, e.previous_value));
    return commands;
}

std::vector<Argv> rollback_commands(const RollbackPlan& plan, const Ledger& ledger,
                                    const KernelFs& root) {
    if (plan.bootloader == Bootloader::grub)
        return {grub_regenerate_command(root)};
    if (plan.bootloader == Bootloader::grubby)
        return grubby_rollback_commands(ledger, plan.grub_previous_value);
    if (plan.bootloader == Bootloader::ostree) {
        // The staged deployment holds the value apply set; its entry is written only at the
        // next shutdown, so the ledger says what it holds.
        std::optional<std::string> previous;
        if (!ledger.bls_entries.empty())
            previous = ledger.bls_entries.front().previous_value;
        auto command = ostree_kargs_command({ledger.value}, previous);
        return command ? std::vector<Argv>{*command} : std::vector<Argv>{};
    }
    return {};
}

// A kernel installed after apply took the value from /etc/kernel/cmdline into its own entry;
// it gets the value from before apply back too, or its next boot would keep what was rolled back.
void plan_entries_installed_since(const Ledger& ledger, const KernelFs& root, RollbackPlan& plan) {
    const LedgerFile* cmdline = ledger.file(kKernelCmdlineFile);
    if (plan.bootloader != Bootloader::kernel_cmdline || !cmdline)
        return;
    for (const ConfigFile& entry : read_boot_entries(root).own) {
        if (ledger.file(entry.target_path) ||
            boot_entry_alloc_threads(entry.text) != std::optional<std::string>(ledger.value))
            continue;
        PlannedFile p{entry, FileKind::boot_entry,
                      edit_boot_entry_text(entry.target_path, entry.text, cmdline->previous_value),
                      cmdline->previous_value};
        p.in_place = true;
        plan.change.warnings.push_back(entry.target_path + " was installed after apply with " +
                                       std::string(kAllocThreadsParam) + "=" + ledger.value +
                                       "; putting back the value from before apply in it too");
        plan.change.files.push_back(std::move(p));
    }
}

// The value the file gives the kernel now; for grub, over all grub files.
std::optional<std::string> value_now(const PlannedFile& p, const KernelFs& root) {
    if (p.kind == FileKind::kernel_cmdline)
        return kernel_cmdline_alloc_threads(p.file.text);
    if (p.kind == FileKind::boot_entry)
        return boot_entry_alloc_threads(p.file.text);
    return effective_alloc_threads(load_grub(root).sources);
}

// A file edited since apply whose value is not the one apply wrote: the kernel takes "+8" and
// "8" alike, so they are compared as numbers.
std::optional<std::string> someone_elses_value(const PlannedFile& p, const Ledger& ledger,
                                               const KernelFs& root) {
    if (!p.in_place)
        return std::nullopt;
    const auto now = value_now(p, root);
    const auto wrote = parse_kernel_ulong(ledger.value);
    if (now && wrote && parse_kernel_ulong(*now) == wrote)
        return std::nullopt;
    return p.file.target_path + " gives the kernel " +
           (now ? std::string(kAllocThreadsParam) + "=" + printable_text(*now)
                : "no " + std::string(kAllocThreadsParam) + "=") +
           " now, not the " + ledger.value + " apply wrote (" + ledger.applied_at +
           "), and rollback would put " +
           (p.previous_value ? std::string(kAllocThreadsParam) + "=" + *p.previous_value
                             : std::string("no value")) +
           " over it";
}

// Someone's own value is kept unless the user says otherwise.
void refuse_over_someone_elses_value(const RollbackPlan& plan, const Ledger& ledger,
                                     const KernelFs& root, bool force, const SettingWords& words,
                                     std::vector<std::string>& warnings) {
    for (const auto& p : plan.change.files) {
        const auto conflict = someone_elses_value(p, ledger, root);
        if (!conflict)
            continue;
        if (force) {
            warnings.push_back(*conflict + "; putting it back anyway (" + words("force") + ")");
            continue;
        }
        throw UsageError(*conflict + ". To keep the file as it is, remove " +
                         std::string(kLedgerPath) +
                         " (the .hugetune-*.bak backups stay); to put back the value from "
                         "before apply anyway, run 'hugetune rollback " +
                         Flag{"force"} + "'");
    }
}

Ledger require_ledger(const KernelFs& root) {
    auto ledger = read_ledger(root);
    if (!ledger)
        throw RuntimeError("nothing to roll back: " + root.shown(kLedgerPath) +
                           " does not exist (hugetune apply has not changed this system, or it "
                           "was rolled back already)");
    return *ledger;
}

}  // namespace

RollbackPlan plan_rollback(const Ledger& ledger, const KernelFs& root, bool force,
                           const SettingWords& words) {
    RollbackPlan plan;
    plan.bootloader = parse_bootloader_name(ledger.bootloader).value_or(Bootloader::grub);
    auto& files = plan.change.files;
    for (const auto& lf : ledger.files) {
        auto p = plan_restore(lf, root, plan.change.warnings);
        if (!p)
            continue;
        if (lf.kind == FileKind::grub)
            plan.grub_previous_value = lf.previous_value;
        files.push_back(std::move(*p));
    }
    if (std::any_of(files.begin(), files.end(),
                    [](const PlannedFile& p) { return p.in_place && p.kind == FileKind::grub; }))
        plan_grub_in_place(root, plan.grub_previous_value, files);
    plan_entries_installed_since(ledger, root, plan);
    std::erase_if(files, [](const PlannedFile& p) { return p.new_text == p.file.text; });
    refuse_over_someone_elses_value(plan, ledger, root, force, words, plan.change.warnings);
    plan.change.commands = rollback_commands(plan, ledger, root);
    return plan;
}

namespace {

// The backups beside the files rolled back: those of each apply, and of a file this rollback
// put the previous value into in place. Nothing reads them once the ledger is gone, but they
// are the only copy of a file as it was before hugetune changed it, so they stay for the
// operator to remove, and are named so that none is forgotten.
void say_backups_left(const Ledger& ledger, const RollbackPlan& plan, const KernelFs& root,
                      std::ostream& out) {
    std::set<std::string> files;
    for (const auto& f : ledger.files)
        files.insert(f.path);
    for (const auto& p : plan.change.files)
        files.insert(p.file.target_path);
    std::vector<std::string> backups;
    for (const auto& f : files)
        for (auto& b : backups_beside(root, f))
            backups.push_back(std::move(b));
    if (backups.empty())
        return;
    const bool one = backups.size() == 1;
    out << "left in place: " << (one ? "the backup " : "the backups ")
        << join(backups, ", ", printable_text)
        << (one ? " (the file as it was before hugetune changed it); nothing needs it now: "
                  "remove it when you no longer want it"
                : " (each a file as it was before hugetune changed it); nothing needs them now: "
                  "remove them when you no longer want them")
        << "\n";
}

// Plans the undo and writes it through one Effects, as apply_steps does.
void rollback_steps(const TargetOptions& target, bool force, BootOutcome& done, std::ostream& out,
                    std::ostream& err) {
    KernelFs root(target.root);
    require_root(root, target, "rollback");
    const std::optional<BootConfigLock> lock =
        target.dry_run ? BootConfigLock::for_dry_run(root) : BootConfigLock(root);
    Effects effects(root.root_dir(), target.dry_run, out, target.words);
    finish_interrupted_apply(root, effects, target, err);
    Ledger ledger = require_ledger(root);
    done.ledger = ledger;
    done.setting = std::string(kAllocThreadsParam) + "=" + ledger.value;
    done.bootloader = ledger.bootloader;
    RollbackPlan plan = plan_rollback(ledger, root, force, target.words);
    record_plan(plan.change, done);
    print_messages(plan.change, err);
    // The ledger goes last: a rollback killed part-way leaves it, and the next one finds the
    // files already restored holding their original bytes and restores the rest.
    write_changes(
        plan.change.files, [](const std::vector<std::string>&) {},
        [&](const std::vector<std::string>&) { remove_ledger(effects); }, effects, out);
    done.written = !effects.dry_run();
    done.not_run = done.commands;  // until the rebuild returns, none counts as run
    try {
        done.not_run = rebuild_boot_entries(root, target, plan.change.commands, effects, out, err);
    } catch (const Error& e) {
        // On ostree the command is the whole undo: the ledger stays for another rollback.
        if (plan.bootloader != Bootloader::ostree)
            throw;
        write_ledger(effects, ledger);
        done.written = false;
        throw Error(e.code(), e.message() + "; nothing was changed, and " +
                                  root.shown(kLedgerPath) + " is kept for another rollback");
    }
    if (effects.dry_run())
        return;
    out << "rolled back " << kAllocThreadsParam << "=" << ledger.value << " (applied "
        << printable_text(ledger.applied_at) << ")" << pending_rebuild_clause(done.not_run) << "\n";
    say_backups_left(ledger, plan, root, out);
}

}  // namespace

BootOutcome rollback_boot_parameter(const TargetOptions& target, bool force) {
    return run_boot_steps_locked(target,
                                 [&](BootOutcome& done, std::ostream& out, std::ostream& err) {
                                     rollback_steps(target, force, done, out, err);
                                 });
}

}  // namespace hugetune::boot
