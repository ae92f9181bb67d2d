// The one place where hugetune acts on the machine beyond its huge page pools: it runs the
// programs that change the boot (kexec, systemctl, update-grub, grubby) and writes or removes the
// files that outlive the command (the boot configuration apply and rollback edit, their backups
// and ledger; the boot sweep's state, result and unit). Two switches turn it into a printed plan,
// so that no command can forget them:
//   --dry-run   every effect is printed ("would run: ...", "would write ...", or what the caller
//               shows instead, such as a file's diff), none is done;
//   --root DIR  every program is printed, never run (a program of this machine acts on this
//               machine, not on DIR), and files are written only inside DIR: each is named by
//               its path on the tree and written through the tree's RootDir
//               (tuner/system/root_dir.hpp), so no link in DIR leads a write out of it.
// A command asks its Effects for each of these; none runs such a program or writes such a file
// on its own. A dry run and a real one are then the same calls: what differs is only whether
// each is done or printed.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/errors.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/root_dir.hpp"

namespace hugetune {

class Effects {
  public:
    using Argv = std::vector<std::string>;
    // What --dry-run prints for a write or a removal: nothing given, its own "would write PATH"
    // or "would remove PATH" line; else the text as given (a file's diff, ending in a newline),
    // or nothing when it is empty, for an effect another one's text shows already (the backup
    // of a file and the ledger that records its change belong to the file's diff).
    using Shown = std::optional<std::string>;

    // `root`: this machine's "/" or the tree of --root, which outlives the Effects. The plan is
    // printed on `plan`, its settings worded as `words` says.
    Effects(const RootDir& root, bool dry_run, std::ostream& plan, SettingWords words = {});

    bool dry_run() const { return dry_run_; }
    const RootDir& root() const { return root_; }
    // Whether a program would really run: this machine and no --dry-run.
    bool runs_programs() const { return live_ && !dry_run_; }

    // Runs `argv` (argv[0] found on PATH, from an argument vector, standard input /dev/null) and
    // returns true; throws RuntimeError naming the command and the end of its message when it
    // cannot start or exits non-zero. When programs are not run, prints "would run: COMMAND" and
    // returns false; under --root, dry run or not, followed by "  (not run: --root DIR is not
    // this machine)".
    bool run(const Argv& argv);
    // Runs the root's own program: `argv` itself on this machine, `chroot DIR argv` under --root
    // (argv[0] must then be a program inside DIR). Printed instead under --dry-run.
    bool run_inside_root(const Argv& argv);

    // Writes `bytes` to `target_path` (its path on the tree: "/etc/default/grub") with
    // write_file_atomically and `ownership` in its directory, held by descriptor, creating the
    // missing directories, and returns true. Under --dry-run prints it as `shown` says and
    // returns false. Throws RuntimeError naming a directory it cannot create; a link on the way
    // is followed inside the tree, and one at the file itself refused (UsageError).
    bool write_file(std::string_view target_path, std::string_view bytes,
                    const FileOwnership& ownership = {}, const Shown& shown = std::nullopt);
    // Removes the entry at `target_path` (a file or a link itself) when it exists; printed under
    // --dry-run as `shown` says.
    bool remove_file(std::string_view target_path, const Shown& shown = std::nullopt);
    // Removes the temporary files a killed writer left beside `target_path`
    // (ContainedDir::remove_stale_temporaries): only for a caller holding the lock of every writer
    // of it. Nothing under --dry-run, and nothing printed: they were never in a plan.
    void remove_stale_temporaries_of(std::string_view target_path);

    // Every effect printed instead of done, in order, as printed.
    const std::vector<std::string>& planned() const { return planned_; }

  private:
    void plan_line(const std::string& line);
    // `shown`, or `line` when nothing is given.
    void plan(const Shown& shown, const std::string& line);

    const RootDir& root_;
    bool live_;
    bool dry_run_;
    std::ostream& plan_;
    SettingWords words_;
    std::vector<std::string> planned_;
};

// A command shell-quoted for people, its control characters escaped (printable_text); programs
// run from their argument vector, never from this.
std::string command_text(const std::vector<std::string>& argv);

}  // namespace hugetune
