// The one place where hugetune acts on the machine beyond its huge page pools: it runs the
// programs that change the boot (kexec, systemctl, update-grub, grubby) and writes or removes the
// files that outlive the command (the boot sweep's state, result and unit). Two switches turn it
// into a printed plan, so that no command can forget them:
//   --dry-run   every effect is printed ("would run: ...", "would write ..."), none is done;
//   --root DIR  every program is printed, never run (a program of this machine acts on this
//               machine, not on DIR), and files are written only inside DIR.
// A command asks its Effects for each of these; none runs such a program or writes such a file
// on its own.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune {

class Effects {
  public:
    using Argv = std::vector<std::string>;

    // `root`: "/" for this machine, another directory for --root. The plan is printed on `plan`.
    Effects(std::filesystem::path root, bool dry_run, std::ostream& plan);

    bool dry_run() const { return dry_run_; }
    const std::filesystem::path& root() const { return root_; }
    // Whether a program would really run: this machine and no --dry-run.
    bool runs_programs() const { return live_ && !dry_run_; }

    // Runs `argv` (argv[0] found on PATH, from an argument vector, standard input /dev/null) and
    // returns true; throws RuntimeError naming the command and the end of its message when it
    // cannot start or exits non-zero. When programs are not run, prints "would run: COMMAND" and
    // returns false.
    bool run(const Argv& argv);
    // Runs the root's own program: `argv` itself on this machine, `chroot DIR argv` under --root
    // (argv[0] must then be a program inside DIR). Printed instead under --dry-run.
    bool run_inside_root(const Argv& argv);

    // Writes `bytes` to `path` (a path on this machine, inside the root) with
    // write_file_atomically, creating its missing directories. Under --dry-run prints "would
    // write PATH" and returns false. Throws
    // RuntimeError for a path outside the root: under --root nothing outside DIR is written, and
    // a link inside DIR on the way is followed inside it (tuner/system/root_path.hpp).
    bool write_file(const std::filesystem::path& path, std::string_view bytes);
    // Removes `path` (inside the root) when it exists; printed under --dry-run.
    bool remove_file(const std::filesystem::path& path);

    // Every effect printed instead of done, in order, as printed.
    const std::vector<std::string>& planned() const { return planned_; }

  private:
    void plan_line(const std::string& line);
    // `path` (inside the root) as it is written: its directories resolved inside the root.
    std::filesystem::path inside_root(const std::filesystem::path& path) const;

    std::filesystem::path root_;
    bool live_;
    bool dry_run_;
    std::ostream& plan_;
    std::vector<std::string> planned_;
};

// A command shell-quoted for people; programs run from their argument vector, never from this.
std::string command_text(const std::vector<std::string>& argv);

}  // namespace hugetune
