#include "tuner/boot/apply.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "tuner/boot/config_file.hpp"
#include "tuner/boot/kernel_cmdline_file.hpp"
#include "tuner/boot/ledger.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/boot/unified_diff.hpp"
#include "tuner/kernel/boot_pool.hpp"
#include "tuner/kernel/cmdline.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::bootloader {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kGrubMain = "/etc/default/grub";
constexpr std::string_view kGrubDropins = "/etc/default/grub.d";
constexpr std::string_view kKernelCmdline = "/etc/kernel/cmdline";

struct GrubFiles {
    std::vector<ConfigFile> files;
    std::vector<bool> editable;  // false: a drop-in reached through a symlink
    std::vector<GrubSource> sources;
};

// The main file, then the drop-ins in the order of grub-mkconfig's `for x in
// /etc/default/grub.d/*.cfg` (sorted by name; hugetune sorts bytewise, as the C locale does).
GrubFiles load_grub(const KernelFs& root) {
    GrubFiles g;
    auto main = read_config_file(std::string(kGrubMain), root.resolve(kGrubMain));
    if (!main)
        return g;
    if (main->text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw UsageError(std::string(kGrubMain) +
                         " is empty; a real one sets at least GRUB_DEFAULT and "
                         "GRUB_CMDLINE_LINUX. Restore it from the grub package or its backup "
                         "before applying");
    g.sources.push_back(parse_grub_source(main->target_path, main->text));
    g.files.push_back(std::move(*main));
    g.editable.push_back(true);
    for (const auto& name : root.list(kGrubDropins)) {
        if (!name.ends_with(".cfg"))
            continue;
        std::string target = std::string(kGrubDropins) + "/" + name;
        fs::path host = root.resolve(target);
        std::error_code ec;
        if (fs::is_directory(host, ec))
            continue;
        std::optional<ConfigFile> file;
        bool editable = true;
        if (fs::is_symlink(host, ec)) {
            auto text = root.read(target);
            if (!text)
                continue;
            file = ConfigFile{target, host, *text};
            editable = false;
        } else {
            file = read_config_file(target, host);
            if (!file)
                continue;
        }
        g.sources.push_back(parse_grub_source(target, file->text));
        g.files.push_back(std::move(*file));
        g.editable.push_back(editable);
    }
    return g;
}

struct PlannedFile {
    ConfigFile file;
    FileKind kind = FileKind::grub;
    std::string new_text;
    std::optional<std::string> previous_value;
    bool in_place = false;  // rollback: a token edit instead of the original bytes
};

std::string iso_now() {
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buf;
}

void require_root(const KernelFs& root, const TargetOptions& t, std::string_view command) {
    if (t.dry_run || !root.is_live() || geteuid() == 0)
        return;
    throw NotRootError(std::string(command) +
                       " changes this machine's boot configuration and needs root; run it with "
                       "sudo, or add --dry-run to see the change");
}

void print_diffs(const std::vector<PlannedFile>& planned, std::ostream& out) {
    for (const auto& p : planned)
        out << unified_diff(p.file.text, p.new_text, "a" + p.file.target_path,
                            "b" + p.file.target_path);
}

void regenerate(const KernelFs& root, const TargetOptions& t, const std::vector<Argv>& commands,
                std::ostream& out, std::ostream& err) {
    for (const auto& argv : commands) {
        std::string cmd = format_command(argv);
        if (t.dry_run) {
            out << "would run: " << cmd << "\n";
        } else if (!t.regenerate) {
            out << "not run (--no-regenerate); to update the boot entries run: " << cmd << "\n";
        } else if (!root.is_live() && !t.force_regenerate) {
            // The tools act on the machine they run on, not on the tree under --root.
            out << "not run (--root " << root.root().string()
                << " is not this machine; run it inside the target, or pass --regenerate): " << cmd
                << "\n";
        } else {
            err << "hugetune: running " << cmd << "\n";
            run_regenerate_command(argv);
            out << "ran: " << cmd << "\n";
        }
    }
}

void print_messages(const std::vector<std::string>& notes, const std::vector<std::string>& warnings,
                    std::ostream& err) {
    for (const auto& n : notes)
        err << "hugetune: note: " << n << "\n";
    for (const auto& w : warnings)
        err << "hugetune: warning: " << w << "\n";
}

std::vector<GrubSource> reparse(const GrubFiles& g, const std::vector<std::string>& texts) {
    std::vector<GrubSource> out;
    for (std::size_t i = 0; i < texts.size(); ++i)
        out.push_back(parse_grub_source(g.files[i].target_path, texts[i]));
    return out;
}

Argv grubby_command(const std::string& kernel, const std::optional<std::string>& value) {
    if (value)
        return {"grubby", "--update-kernel=" + kernel,
                "--args=" + std::string(kAllocThreadsParam) + "=" + *value};
    return {"grubby", "--update-kernel=" + kernel,
            "--remove-args=" + std::string(kAllocThreadsParam)};
}

}  // namespace

int apply_boot_parameter(const ApplyRequest& request, std::ostream& out, std::ostream& err) {
    const TargetOptions& t = request.target;
    KernelFs root(t.root);
    require_root(root, t, "apply");
    GrubFiles grub = load_grub(root);
    Detection det = t.bootloader ? Detection{*t.bootloader, "--bootloader"}
                                 : detect_bootloader(root, grub.sources);
    if (det.kind != Bootloader::kernel_cmdline && grub.sources.empty())
        throw UsageError("--bootloader " + bootloader_name(det.kind) + ": " +
                         root.resolve(kGrubMain).string() + " does not exist");
    auto kcmd = read_config_file(std::string(kKernelCmdline), root.resolve(kKernelCmdline));
    if (det.kind == Bootloader::kernel_cmdline && !kcmd)
        throw UsageError("--bootloader kernel-cmdline: " + root.resolve(kKernelCmdline).string() +
                         " does not exist; create it with the current command line first");

    std::vector<PlannedFile> planned;
    std::vector<std::string> notes{"boot loader: " + bootloader_name(det.kind) + " (" + det.reason +
                                   ")"};
    std::vector<std::string> warnings;
    std::string next_cmdline;
    if (det.kind != Bootloader::kernel_cmdline) {
        GrubEdit edit = plan_grub_edit(grub.sources, request.value);
        auto previous = effective_alloc_threads(grub.sources);
        notes.insert(notes.end(), edit.notes.begin(), edit.notes.end());
        for (std::size_t i = 0; i < grub.files.size(); ++i) {
            if (edit.new_texts[i] == grub.files[i].text)
                continue;
            if (!grub.editable[i])
                throw UsageError(grub.files[i].target_path +
                                 " is a symbolic link and would need this change; hugetune "
                                 "edits only regular files: edit it by hand");
            if (grub.sources[i].parsed.crlf)
                warnings.push_back(grub.files[i].target_path +
                                   " has CRLF line ends; sh keeps each carriage return as part "
                                   "of a value. Convert it with dos2unix");
            planned.push_back({grub.files[i], FileKind::grub, edit.new_texts[i], previous});
        }
        next_cmdline = evaluated_cmdline(reparse(grub, edit.new_texts));
    }
    if (kcmd) {
        std::string text = edit_kernel_cmdline_text(kcmd->target_path, kcmd->text, request.value);
        if (det.kind == Bootloader::kernel_cmdline)
            next_cmdline = text;
        if (text != kcmd->text)
            planned.push_back(
                {*kcmd, FileKind::kernel_cmdline, text, kernel_cmdline_alloc_threads(kcmd->text)});
    }

    std::vector<Argv> commands;
    if (det.kind == Bootloader::grub)
        commands.push_back(grub_regenerate_command(root));
    if (det.kind == Bootloader::grubby)
        commands.push_back(grubby_set_command(request.value));
    if (kcmd)
        notes.push_back("kernels installed from now on take " + std::string(kKernelCmdline) +
                        "; entries installed before keep their options until kernel-install "
                        "adds them again");

    auto release = request.kernel_release;
    if (!release) {
        auto running = root.read_line("/proc/sys/kernel/osrelease");
        if (running && !running->empty())
            release = running;
    }
    auto caveats =
        alloc_threads_caveats(boot_pool_facts(parse_kernel_cmdline(next_cmdline)), release);
    warnings.insert(warnings.end(), caveats.begin(), caveats.end());
    print_messages(notes, warnings, err);

    std::string setting = std::string(kAllocThreadsParam) + "=" + request.value;
    if (t.dry_run) {
        print_diffs(planned, out);
        if (planned.empty())
            out << "no change: " << setting << " is already configured\n";
        regenerate(root, t, commands, out, err);
        return 0;
    }

    auto old_ledger = read_ledger(root);
    Ledger ledger;
    ledger.applied_at = iso_now();
    ledger.value = request.value;
    ledger.bootloader = bootloader_name(det.kind);
    std::string stamp = backup_timestamp();
    for (const auto& p : planned) {
        const LedgerFile* prev = old_ledger ? old_ledger->file(p.file.target_path) : nullptr;
        // A second apply keeps the bytes from before the first one, so that rollback goes
        // back to the configuration hugetune found.
        bool chained = prev && prev->applied == p.file.text;
        LedgerFile lf;
        lf.path = p.file.target_path;
        lf.kind = p.kind;
        std::string backup = back_up(p.file, stamp);
        lf.backup = chained ? prev->backup : backup;
        lf.original = chained ? prev->original : p.file.text;
        lf.previous_value = chained ? prev->previous_value : p.previous_value;
        lf.applied = p.new_text;
        ledger.files.push_back(std::move(lf));
        out << "backed up " << p.file.target_path << " to " << backup << "\n";
    }
    if (old_ledger) {
        for (const auto& f : old_ledger->files) {
            if (ledger.file(f.path))
                continue;
            auto now = root.read(f.path);
            if (now && *now == f.applied)
                ledger.files.push_back(f);
        }
        ledger.bls_entries = old_ledger->bls_entries;
    }
    if (det.kind == Bootloader::grubby && ledger.bls_entries.empty())
        for (const auto& e : read_bls_entries(root))
            ledger.bls_entries.push_back({e.path, e.kernel, e.alloc_threads});
    // The ledger is written before the files, so that an interrupted apply can be rolled back.
    if (!ledger.files.empty() || !ledger.bls_entries.empty())
        write_ledger(root, ledger);
    for (const auto& p : planned) {
        replace_config_file(p.file, p.new_text);
        out << "edited " << p.file.target_path << "\n";
    }
    if (planned.empty())
        out << "no change: " << setting << " is already configured\n";
    regenerate(root, t, commands, out, err);
    out << setting << " is configured for the next boot; after rebooting, run 'hugetune verify'\n";
    return 0;
}

int rollback_boot_parameter(const TargetOptions& t, std::ostream& out, std::ostream& err) {
    KernelFs root(t.root);
    require_root(root, t, "rollback");
    auto ledger = read_ledger(root);
    if (!ledger)
        throw RuntimeError("nothing to roll back: " + root.resolve(kLedgerPath).string() +
                           " does not exist (hugetune apply has not changed this system, or it "
                           "was rolled back already)");
    auto kind = parse_bootloader_name(ledger->bootloader).value_or(Bootloader::grub);
    std::vector<PlannedFile> planned;
    std::vector<std::string> warnings;
    bool grub_in_place = false;
    std::optional<std::string> grub_previous;
    for (const auto& lf : ledger->files) {
        auto cur = read_config_file(lf.path, root.resolve(lf.path));
        if (!cur) {
            warnings.push_back(lf.path + " no longer exists; not restored");
            continue;
        }
        if (cur->text == lf.original)
            continue;
        PlannedFile p{*cur, lf.kind, lf.original, lf.previous_value};
        if (cur->text != lf.applied) {
            // Edited by someone else since: put the previous value back in place instead of
            // undoing their change along with ours.
            p.in_place = true;
            if (lf.previous_value && !is_safe_param_value(*lf.previous_value))
                throw RuntimeError(lf.path +
                                   " changed since hugetune applied and the previous "
                                   "value '" +
                                   *lf.previous_value +
                                   "' cannot be written back safely; restore " + lf.backup +
                                   " by hand");
            warnings.push_back(lf.path + " changed since hugetune applied; restoring the " +
                               "previous value in place instead of the original bytes");
            if (lf.kind == FileKind::kernel_cmdline)
                p.new_text = edit_kernel_cmdline_text(lf.path, cur->text, lf.previous_value);
            else
                grub_in_place = true;
        }
        if (lf.kind == FileKind::grub)
            grub_previous = lf.previous_value;
        planned.push_back(std::move(p));
    }
    if (grub_in_place) {
        GrubFiles grub = load_grub(root);
        std::vector<std::string> texts;
        for (const auto& f : grub.files) {
            std::string text = f.text;
            for (const auto& p : planned)
                if (p.file.target_path == f.target_path && !p.in_place)
                    text = p.new_text;
            texts.push_back(text);
        }
        GrubEdit edit = plan_grub_edit(reparse(grub, texts), grub_previous);
        for (auto& p : planned) {
            if (!p.in_place || p.kind != FileKind::grub)
                continue;
            for (std::size_t i = 0; i < grub.files.size(); ++i)
                if (grub.files[i].target_path == p.file.target_path)
                    p.new_text = edit.new_texts[i];
        }
    }
    std::erase_if(planned, [](const PlannedFile& p) { return p.new_text == p.file.text; });

    std::vector<Argv> commands;
    if (kind == Bootloader::grub)
        commands.push_back(grub_regenerate_command(root));
    if (kind == Bootloader::grubby) {
        const auto& entries = ledger->bls_entries;
        bool same = std::all_of(entries.begin(), entries.end(), [&](const LedgerBlsEntry& e) {
            return e.previous_value == entries.front().previous_value;
        });
        if (entries.empty() || same)
            commands.push_back(grubby_command(
                "ALL", entries.empty() ? grub_previous : entries.front().previous_value));
        else
            for (const auto& e : entries)
                commands.push_back(grubby_command(e.kernel, e.previous_value));
    }
    print_messages({}, warnings, err);
    if (t.dry_run) {
        print_diffs(planned, out);
        regenerate(root, t, commands, out, err);
        return 0;
    }
    std::string stamp = backup_timestamp();
    for (const auto& p : planned) {
        if (p.in_place)
            out << "backed up " << p.file.target_path << " to " << back_up(p.file, stamp) << "\n";
        replace_config_file(p.file, p.new_text);
        out << (p.in_place ? "edited " : "restored ") << p.file.target_path << "\n";
    }
    remove_ledger(root);
    regenerate(root, t, commands, out, err);
    out << "rolled back hugepage_alloc_threads=" << ledger->value << " (applied "
        << ledger->applied_at << ")\n";
    return 0;
}

}  // namespace hugetune::bootloader
