#include "tuner/boot/boot_change.hpp"

#include <unistd.h>

#include "model/text.hpp"
#include "tuner/boot/unified_diff.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::boot {

void require_root(const KernelFs& root, const TargetOptions& target, std::string_view command) {
    if (target.dry_run || !root.is_live() || geteuid() == 0)
        return;
    throw NotRootError(std::string(command) +
                       " changes this machine's boot configuration and needs root; run it with "
                       "sudo, or add --dry-run to see the change");
}

void print_messages(const BootChange& change, std::ostream& err) {
    for (const auto& n : change.notes)
        err << "hugetune: note: " << printable_text(n) << "\n";
    for (const auto& w : change.warnings)
        err << "hugetune: warning: " << printable_text(w) << "\n";
}

void preview_change(const BootChange& change, const KernelFs& root, const TargetOptions& target,
                    std::ostream& out, std::ostream& err) {
    for (const auto& p : change.files)
        out << unified_diff(p.file.text, p.new_text, "a" + p.file.target_path,
                            "b" + p.file.target_path);
    rebuild_boot_entries(root, target, change.commands, out, err);
}

std::string back_up_planned(const PlannedFile& planned, const std::string& timestamp,
                            std::ostream& out) {
    std::string backup = back_up(planned.file, timestamp);
    out << "backed up " << planned.file.target_path << " to " << backup << "\n";
    return backup;
}

void write_planned(const PlannedFile& planned, std::string_view verb, std::ostream& out) {
    replace_config_file(planned.file, planned.new_text);
    out << verb << " " << planned.file.target_path << "\n";
}

void rebuild_boot_entries(const KernelFs& root, const TargetOptions& target,
                          const std::vector<Argv>& commands, std::ostream& out, std::ostream& err) {
    for (const auto& argv : commands) {
        std::string cmd = format_command(argv);
        if (target.dry_run) {
            out << "would run: " << cmd << "\n";
        } else if (!target.regenerate) {
            out << "not run (--no-regenerate); to update the boot entries run: " << cmd << "\n";
        } else if (!root.is_live() && !target.force_regenerate) {
            // The tools act on the machine they run on, not on the tree under the root.
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

}  // namespace hugetune::boot
