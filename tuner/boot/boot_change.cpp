#include "tuner/boot/boot_change.hpp"

#include <unistd.h>
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/boot/unified_diff.hpp"
#include "tuner/system/effects.hpp"
#include "tuner/system/privilege.hpp"

namespace hugetune::boot {

void require_root(const KernelFs& root, const TargetOptions& target, std::string_view command) {
    if (target.dry_run || running_as_root())
        return;
    // The root's own tools run by chroot(2), which only root may call: refused before anything
    // is written, not after the files.
    if (!root.is_live() && target.force_regenerate)
        throw NotRootError(std::string(command) + " " + Flag{"force_regenerate"} + " under " +
                           Flag{"root"} + " runs " + root.root().string() +
                           "'s own tools by chroot, which needs root; run it with sudo, or "
                           "give " +
                           Flag{"regenerate"} + " and rebuild the boot entries inside the tree");
    if (!root.is_live())
        return;
    throw NotRootError(std::string(command) +
                       " changes this machine's boot configuration and needs root; run it with "
                       "sudo, or add " +
                       Flag{"dry_run"} + " to see the change");
}

void print_messages(const BootChange& change, std::ostream& err) {
    for (const auto& n : change.notes)
        err << "hugetune: note: " << printable_text(n) << "\n";
    for (const auto& w : change.warnings)
        err << "hugetune: warning: " << printable_text(w) << "\n";
}

std::vector<Argv> rebuild_boot_entries(const KernelFs& root, const TargetOptions& target,
                                       const std::vector<Argv>& commands, Effects& effects,
                                       std::ostream& out, std::ostream& err) {
    // Every command goes through the one place that runs programs, and under --root never this
    // machine's tool (which would rebuild this machine's boot menu), only the root's own by
    // chroot when --regenerate asks for it. A dry run decides the same way and says the same,
    // only a command the real run would run is printed instead ("would run: ...").
    std::vector<Argv> not_run;
    for (const auto& argv : commands) {
        const std::string cmd = format_command(argv);
        if (!target.regenerate) {
            out << "not run (" << target.words("regenerate")
                << "); to update the boot entries run: " << cmd << "\n";
            not_run.push_back(argv);
        } else if (!root.is_live() && !target.force_regenerate) {
            out << "not run (" << target.words("root") << " " << root.root().string()
                << " is not this machine; run it inside the target, or pass "
                << target.words("force_regenerate") << " to run the root's own " << argv.front()
                << " there by chroot): " << cmd << "\n";
            not_run.push_back(argv);
        } else if (target.dry_run) {
            effects.run_inside_root(argv);
            not_run.push_back(argv);
        } else if (!root.is_live()) {
            if (!program_in_root(root, argv.front()))
                throw RuntimeError(Flag{"force_regenerate"} + ": " + root.root().string() +
                                   " has no " + argv.front() +
                                   " of its own (looked in its /usr/local/sbin, "
                                   "/usr/local/bin, /usr/sbin, /usr/bin, /sbin and /bin); "
                                   "install it there, or use " +
                                   Flag{"regenerate"} +
                                   " and rebuild the boot entries inside the target");
            const std::string chrooted = "chroot " + root.root().string() + " " + cmd;
            err << "hugetune: running " << chrooted << "\n";
            effects.run_inside_root(argv);
            out << "ran: " << chrooted << "\n";
        } else {
            err << "hugetune: running " << cmd << "\n";
            effects.run(argv);
            out << "ran: " << cmd << "\n";
        }
    }
    return not_run;
}

std::string pending_rebuild_clause(const std::vector<Argv>& not_run) {
    if (not_run.empty())
        return {};
    return "; the boot entries are not rebuilt yet: run " + join(not_run, "; ", format_command) +
           " before rebooting";
}

}  // namespace hugetune::boot
