#include "tuner/boot/apply.hpp"

#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/boot/boot_entries.hpp"
#include "tuner/boot/boot_lock.hpp"
#include "tuner/boot/file_changes.hpp"
#include "tuner/boot/grub_evaluation.hpp"
#include "tuner/boot/grub_files.hpp"
#include "tuner/boot/grub_variables.hpp"
#include "tuner/boot/kernel_cmdline_file.hpp"
#include "tuner/boot/ostree.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/boot/tuned.hpp"
#include "tuner/kernel/boot_pool.hpp"
#include "tuner/kernel/cmdline.hpp"
#include "tuner/kernel/kernel_files.hpp"

namespace hugetune::boot {

namespace {

// The chosen boot loader, or the one detected; a chosen grub or grubby needs the grub files.
Detection choose_bootloader(const TargetOptions& target, const KernelFs& root,
                            const GrubFiles& grub) {
    Detection det = target.bootloader ? Detection{*target.bootloader, target.words("bootloader")}
                                      : detect_bootloader(root, grub.sources);
    if (det.kind != Bootloader::kernel_cmdline && grub.sources.empty())
        throw SettingError("bootloader", bootloader_name(det.kind) + ": " + root.shown(kGrubMain) +
                                             " does not exist");
    return det;
}

// Every grub variable left in `text` (a command line from `where`) checked against what grub
// would put there at boot.
void check_variables_in(const std::string& text, const std::string& where,
                        const BootVariables& vars, const std::string& value, ApplyPlan& plan) {
    for (const auto& ref : grub_variable_refs(text))
        check_grub_variable(ref, where, vars, value, plan.change.warnings);
}

void plan_grub_files(const GrubFiles& grub, const std::string& value, const BootVariables& vars,
                     ApplyPlan& plan) {
    GrubEdit edit = plan_grub_edit(grub.sources, value);
    auto previous = effective_alloc_threads(grub.sources);
    plan.change.notes.insert(plan.change.notes.end(), edit.notes.begin(), edit.notes.end());
    for (std::size_t i = 0; i < grub.files.size(); ++i) {
        const ConfigFile& file = grub.files[i];
        if (edit.new_texts[i] == file.text)
            continue;
        if (!grub.editable[i])
            throw UsageError(file.target_path +
                             " is a symbolic link and would need this change; hugetune "
                             "edits only regular files: edit it by hand");
        if (grub.sources[i].parsed.crlf)
            plan.change.warnings.push_back(
                file.target_path +
                " has CRLF line ends; sh keeps each carriage return as part "
                "of a value. Convert it with dos2unix");
        plan.change.files.push_back({file, FileKind::grub, edit.new_texts[i], previous});
    }
    auto after = parse_grub_texts(grub, edit.new_texts);
    EvaluatedCmdline evaluated = evaluate_cmdline(after);
    plan.next_cmdline = evaluated.text();
    // What the shell leaves of a `$` goes into grub.cfg's linux lines, which grub expands.
    for (const auto& ref : grub_variable_refs(plan.next_cmdline)) {
        const auto& from = evaluated.chars[ref.offset].written_by;
        std::string where =
            from ? after[from->source].path + ":" +
                       std::to_string(after[from->source].parsed.assignments[from->assignment].line)
                 : after[0].path;
        check_grub_variable(ref, where, vars, value, plan.change.warnings);
    }
}

void plan_kernel_cmdline_file(const ConfigFile& file, const std::string& value, ApplyPlan& plan) {
    std::string text = edit_kernel_cmdline_text(file.target_path, file.text, value);
    if (plan.bootloader.kind == Bootloader::kernel_cmdline)
        plan.next_cmdline = text;
    if (text != file.text)
        plan.change.files.push_back(
            {file, FileKind::kernel_cmdline, text, kernel_cmdline_alloc_threads(file.text)});
}

// systemd-boot starts the kernels installed before with their entries' own options, so those
// entries get the value too; entries of other installations on a shared ESP are left alone.
void plan_boot_entries(const KernelFs& root, const std::string& value, ApplyPlan& plan) {
    BootEntries entries = read_boot_entries(root);
    if (!entries.entry_token && !entries.others.empty())
        throw RuntimeError(
            "cannot tell which boot entries belong to this system: neither "
            "/etc/kernel/entry-token nor /etc/machine-id exists under " +
            root.root().string() + "; " + join(entries.others) + " would keep their options. Add " +
            std::string(kAllocThreadsParam) + "=" + value +
            " to the options of this system's entries by hand");
    if (!entries.others.empty())
        plan.change.notes.push_back(
            "left as they are: boot entries not named after this "
            "system's entry token " +
            entries.entry_token.value_or("") + ": " + join(entries.others));
    if (entries.own.empty())
        plan.not_reached =
            "no boot entry of this system (" +
            (entries.entry_token
                 ? "entry token " + *entries.entry_token + " from " + entries.token_source
                 : std::string("no entry token")) +
            ") under /efi, /boot or /boot/efi loader/entries; the kernel gets it once "
            "kernel-install installs a kernel again";
    for (const ConfigFile& entry : entries.own) {
        std::string text = edit_boot_entry_text(entry.target_path, entry.text, value);
        if (text != entry.text)
            plan.change.files.push_back(
                {entry, FileKind::boot_entry, text, boot_entry_alloc_threads(entry.text)});
    }
}

std::vector<Argv> apply_commands(Bootloader kind, const KernelFs& root, const std::string& value) {
    if (kind == Bootloader::grub)
        return {grub_regenerate_command(root)};
    if (kind == Bootloader::grubby)
        return {grubby_command("ALL", value)};
    return {};
}

// Why the parameter would do nothing at the next boot: the kernel measured (from the report)
// or, without a report, the one running on the target.
std::vector<std::string> next_boot_caveats(const KernelFs& root, std::optional<std::string> release,
                                           const std::string& next_cmdline) {
    if (!release)
        release = running_kernel_release(root);
    return alloc_threads_caveats(
        boot_pool_facts(parse_kernel_cmdline(next_cmdline), running_page_size_facts(root)),
        release);
}

// What rollback is to write back into a file someone edited after an earlier apply: the file as
// this apply found it, their edit kept, with the value from before the earlier apply in place of
// the one it wrote (for grub, as one edit over all grub files, as rollback makes it).
std::string original_before_earlier_apply(const PlannedFile& planned, const LedgerFile& earlier,
                                          const KernelFs& root) {
    const auto& value = earlier.previous_value;
    if (value && !is_safe_param_value(*value))
        throw RuntimeError(planned.file.target_path +
                           " changed since hugetune last applied, and the value from before that "
                           "apply, '" +
                           printable_text(*value) +
                           "', cannot be written back into it safely; run hugetune rollback "
                           "first, then apply again");
    if (planned.kind == FileKind::kernel_cmdline)
        return edit_kernel_cmdline_text(planned.file.target_path, planned.file.text, value);
    if (planned.kind == FileKind::boot_entry)
        return edit_boot_entry_text(planned.file.target_path, planned.file.text, value);
    const GrubFiles grub = load_grub(root);
    const GrubEdit edit = plan_grub_edit(grub.sources, value);
    for (std::size_t i = 0; i < grub.files.size(); ++i)
        if (grub.files[i].target_path == planned.file.target_path)
            return edit.new_texts[i];
    return planned.file.text;
}

// A second apply keeps what rollback returns to: the value from before the first apply and,
// for a file unchanged since hugetune wrote it, its bytes from then; a file edited in between
// keeps the edit, with that value back in it. A grub file new to the ledger takes the grub
// value from before the first apply too: for grub it is one value over all the files.
LedgerFile ledger_entry(const PlannedFile& planned, const std::string& backup,
                        const std::optional<Ledger>& previous, const KernelFs& root) {
    const LedgerFile* earlier = previous ? previous->file(planned.file.target_path) : nullptr;
    LedgerFile lf;
    lf.path = planned.file.target_path;
    lf.kind = planned.kind;
    lf.applied = planned.new_text;
    if (earlier && earlier->applied == planned.file.text) {
        lf.backup = earlier->backup;
        lf.original = earlier->original;
        lf.previous_value = earlier->previous_value;
        return lf;
    }
    lf.backup = backup;
    lf.original =
        earlier ? original_before_earlier_apply(planned, *earlier, root) : planned.file.text;
    lf.previous_value = earlier ? earlier->previous_value : planned.previous_value;
    if (!earlier && planned.kind == FileKind::grub && previous)
        for (const auto& f : previous->files)
            if (f.kind == FileKind::grub)
                lf.previous_value = f.previous_value;
    return lf;
}

// The ledger is written twice: before the first byte of any file changes, with every file's
// bytes before and after as `pending`, so that a kill part-way leaves an edit the next apply or
// rollback can complete (finish_interrupted_apply); and once every file is written, without
// them. A failure part-way puts the files back and the previous ledger with them. Returns the
// ledger as the change leaves it: the one recorded, or `previous` when there was none to record.
std::optional<Ledger> write_apply(const ApplyRequest& request, const ApplyPlan& plan,
                                  const std::optional<Ledger>& previous, const KernelFs& root,
                                  Effects& effects, std::ostream& out) {
    Ledger ledger;
    bool recorded = false;  // the intent is in the ledger file
    try {
        write_changes(
            plan.change.files,
            [&](const std::vector<std::string>& backups) {
                ledger = ledger_after_apply(request, plan, backups, previous, root);
                if (ledger.files.empty() && ledger.bls_entries.empty())
                    return;
                ledger.pending = pending_writes(plan.change.files, backups);
                recorded = write_ledger(effects, ledger);
            },
            [&](const std::vector<std::string>&) {
                if (!recorded)
                    return;
                ledger.pending.clear();
                write_ledger(effects, ledger);
            },
            effects, out);
    } catch (const Error& e) {
        if (!recorded)
            throw;
        try {
            put_back_ledger(effects, previous);
        } catch (const Error& undo) {
            throw Error(e.code(), e.message() + "; " + std::string(kLedgerPath) +
                                      " still records the change (" + undo.what() +
                                      "): run hugetune rollback");
        }
        throw;
    }
    return recorded ? std::optional<Ledger>(ledger) : previous;
}

// On ostree the command is the change; elsewhere the files are, and the commands rebuild from them.
void say_if_unchanged(const ApplyPlan& plan, const std::string& setting, std::ostream& out) {
    bool ostree = plan.bootloader.kind == Bootloader::ostree;
    if (plan.change.files.empty() && (!ostree || plan.change.commands.empty()))
        out << "no change: " << setting << " is already configured\n";
}

// rpm-ostree kargs is the whole change on ostree: when it fails nothing changed, so the ledger
// goes back to what it was before.
std::vector<Argv> run_ostree_change(const ApplyPlan& plan, const std::optional<Ledger>& before,
                                    const KernelFs& root, const TargetOptions& target,
                                    Effects& effects, std::ostream& out, std::ostream& err,
                                    BootOutcome& done) {
    try {
        return rebuild_boot_entries(root, target, plan.change.commands, effects, out, err);
    } catch (const Error& e) {
        done.written = false;
        done.ledger = before;
        std::string ledger = root.shown(kLedgerPath);
        std::string after = "; nothing was changed";
        try {
            put_back_ledger(effects, before);
        } catch (const Error& undo) {
            after = "; " + ledger + " now names a change that did not happen (" + undo.what() +
                    "): remove it by hand";
        }
        throw Error(e.code(), e.message() + after);
    }
}

// grub, grubby or kernel-install: the configuration files and the commands that rebuild the
// boot entries from them.
ApplyPlan plan_config_files(const ApplyRequest& request, const KernelFs& root,
                            const BootVariables& vars) {
    GrubFiles grub = load_grub(root);
    ApplyPlan plan{choose_bootloader(request.target, root, grub), {}, {}, {}, {}};
    Bootloader kind = plan.bootloader.kind;
    auto kcmd = read_config_file(root, std::string(kKernelCmdlineFile));
    if (kind == Bootloader::kernel_cmdline && !kcmd)
        throw SettingError("bootloader", bootloader_name(kind) + ": " +
                                             root.shown(kKernelCmdlineFile) +
                                             " does not exist; create it with the current "
                                             "command line first");
    plan.change.notes.push_back("boot loader: " + bootloader_name(kind) + " (" +
                                plan.bootloader.reason + ")");
    if (kind != Bootloader::kernel_cmdline)
        plan_grub_files(grub, request.value, vars, plan);
    if (kcmd)
        plan_kernel_cmdline_file(*kcmd, request.value, plan);
    if (kind == Bootloader::kernel_cmdline)
        plan_boot_entries(root, request.value, plan);
    // grub boots the BLS entries, and the entries kernel-install makes from /etc/kernel/cmdline,
    // through blscfg, which expands their variables; systemd-boot expands none.
    if (kind != Bootloader::kernel_cmdline) {
        if (kcmd)
            check_variables_in(kcmd->text, kcmd->target_path, vars, request.value, plan);
        for (const auto& e : read_bls_entries(root))
            check_variables_in(e.options, e.path, vars, request.value, plan);
    }
    plan.change.commands = apply_commands(kind, root, request.value);
    if (kcmd && kind != Bootloader::kernel_cmdline)
        plan.change.notes.push_back("kernels installed from now on take " +
                                    std::string(kKernelCmdlineFile) +
                                    "; entries installed before keep their options until "
                                    "kernel-install adds them again");
    return plan;
}

// ostree: one rpm-ostree kargs command, and no file of this tree edited.
ApplyPlan plan_ostree(const ApplyRequest& request, const KernelFs& root) {
    if (request.target.bootloader)
        throw SettingError(
            "bootloader",
            bootloader_name(*request.target.bootloader) + ": " + root.shown(kOstreeBooted) +
                " exists: an ostree system boots with its deployment's kernel arguments, which "
                "only rpm-ostree kargs changes, and ignores /etc/default/grub and "
                "/etc/kernel/cmdline; leave the boot loader to be detected");
    ApplyPlan plan{{Bootloader::ostree, std::string(kOstreeBooted)}, {}, {}, {}, {}};
    OstreeDeployment d = read_default_deployment(root);
    plan.change.notes.push_back("boot loader: ostree (" + plan.bootloader.reason + ")");
    plan.change.notes.push_back(
        "the default deployment boots with the kernel arguments of " + d.entry +
        "; rpm-ostree kargs stages a new deployment with the change, and /etc/default/grub and "
        "/etc/kernel/cmdline are left alone");
    // rpm-ostree kargs --append adds at the end: after a bare "--" the kernel would hand the
    // value to init (docs/kernel-facts.md "Kernel command line syntax").
    if (d.values.empty() && init_args_offset(d.options) != std::string::npos)
        throw UsageError("the default deployment's kernel arguments (" + d.entry +
                         ") hold a bare '--', and rpm-ostree kargs --append would put " +
                         alloc_threads_param(request.value) +
                         " after it, where the kernel hands it to init; move the '--' part "
                         "with 'rpm-ostree kargs --editor', then run hugetune again");
    if (auto command = ostree_kargs_command(d.values, request.value)) {
        plan.change.commands.push_back(*command);
        plan.ostree_deployment = LedgerBlsEntry{
            d.entry, d.kernel,
            d.values.empty() ? std::nullopt : std::optional<std::string>(d.values.back())};
    }
    plan.next_cmdline = edit_kernel_cmdline_text(d.entry, d.options, request.value);
    return plan;
}

}  // namespace

ApplyPlan plan_apply(const ApplyRequest& request, const KernelFs& root) {
    BootVariables vars{read_grubenv(root), read_tuned(root)};
    TunedVerdict tuned = check_tuned(vars.tuned, request.value);
    ApplyPlan plan = is_ostree_system(root) ? plan_ostree(request, root)
                                            : plan_config_files(request, root, vars);
    plan.change.notes.insert(plan.change.notes.end(), tuned.notes.begin(), tuned.notes.end());
    auto caveats = next_boot_caveats(root, request.kernel_release, plan.next_cmdline);
    plan.change.warnings.insert(plan.change.warnings.end(), caveats.begin(), caveats.end());
    return plan;
}

Ledger ledger_after_apply(const ApplyRequest& request, const ApplyPlan& plan,
                          const std::vector<std::string>& backups,
                          const std::optional<Ledger>& previous, const KernelFs& root) {
    Ledger ledger;
    ledger.applied_at = utc_timestamp("%Y-%m-%dT%H:%M:%SZ");  // ISO 8601
    ledger.value = request.value;
    ledger.bootloader = bootloader_name(plan.bootloader.kind);
    ledger.forced = request.forced;
    for (std::size_t i = 0; i < plan.change.files.size(); ++i) {
        const PlannedFile& p = plan.change.files[i];
        ledger.files.push_back(ledger_entry(p, backups[i], previous, root));
    }
    if (previous) {
        for (const auto& f : previous->files) {
            if (ledger.file(f.path))
                continue;
            auto now = root.read(f.path);
            if (now && *now == f.applied)
                ledger.files.push_back(f);
        }
        ledger.bls_entries = previous->bls_entries;
    }
    if (plan.bootloader.kind == Bootloader::grubby && ledger.bls_entries.empty())
        for (const auto& e : read_bls_entries(root))
            ledger.bls_entries.push_back({e.path, e.kernel, e.alloc_threads});
    if (plan.bootloader.kind == Bootloader::ostree && ledger.bls_entries.empty() &&
        plan.ostree_deployment)
        ledger.bls_entries.push_back(*plan.ostree_deployment);
    return ledger;
}

namespace {

// Plans the change and writes it through one Effects: under --dry-run the same steps print each
// file's diff and the commands instead, and the outcome says nothing was written.
void apply_steps(const ApplyRequest& request, BootOutcome& done, std::ostream& out,
                 std::ostream& err) {
    const TargetOptions& target = request.target;
    KernelFs root(target.root);
    require_root(root, target, "apply");
    std::string setting = std::string(kAllocThreadsParam) + "=" + request.value;
    done.setting = setting;
    const std::optional<BootConfigLock> lock =
        target.dry_run ? BootConfigLock::for_dry_run(root) : BootConfigLock(root);
    Effects effects(root.root_dir(), target.dry_run, out, target.words);
    finish_interrupted_apply(root, effects, target, err);
    ApplyPlan plan = plan_apply(request, root);
    done.bootloader = bootloader_name(plan.bootloader.kind);
    done.not_reached = plan.not_reached;
    record_plan(plan.change, done);
    print_messages(plan.change, err);
    const auto before = read_ledger(root);
    auto ledger = write_apply(request, plan, before, root, effects, out);
    if (!effects.dry_run()) {
        done.written = true;
        done.ledger = std::move(ledger);
    }
    say_if_unchanged(plan, setting, out);
    done.not_run = done.commands;  // until the rebuild returns, none counts as run
    bool ostree = plan.bootloader.kind == Bootloader::ostree;
    done.not_run =
        ostree ? run_ostree_change(plan, before, root, target, effects, out, err, done)
               : rebuild_boot_entries(root, target, plan.change.commands, effects, out, err);
    if (effects.dry_run()) {
        if (plan.not_reached)
            err << "hugetune: warning: " << *plan.not_reached << "\n";
        return;
    }
    if (plan.not_reached)
        throw RuntimeError(setting +
                           " is written to the configuration, but not for the next "
                           "boot: " +
                           *plan.not_reached);
    if (done.not_run.empty())
        out << setting << " is configured for the next boot; after rebooting, run 'hugetune "
            << "verify'\n";
    else if (ostree)
        out << setting << " is recorded in the ledger, but not configured yet: run "
            << format_command(done.not_run.front()) << " before rebooting\n";
    else
        out << setting << " is written to the configuration" << pending_rebuild_clause(done.not_run)
            << "\n";
}

}  // namespace

BootOutcome apply_boot_parameter(const ApplyRequest& request) {
    return run_boot_steps_locked(request.target,
                                 [&](BootOutcome& done, std::ostream& out, std::ostream& err) {
                                     apply_steps(request, done, out, err);
                                 });
}

}  // namespace hugetune::boot
