// The machine a boot sweep runs on, behind one interface: what this boot is (its id, command
// line, kernel and log) and the few things the sweep does to it (write its state and result,
// load and start a kexec image, reboot, enable or disable the continue unit). Tests drive the
// steps with a fake; the live machine does each through its Effects, which --root and
// --dry-run turn into a printed plan.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/page_sizes.hpp"
#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/system/effects.hpp"

namespace hugetune::boot_sweep {

inline constexpr const char* kUnitName = "hugetune-boot-sweep.service";
inline constexpr const char* kUnitDir = "/etc/systemd/system";
// Long enough for the allocation's log to be read and the next kexec to be loaded; a continue
// that hangs past it is killed and the boot goes on without the sweep.
inline constexpr int kUnitTimeoutSeconds = 300;

struct KexecImage {
    std::string kernel;
    std::optional<std::string> initrd;
};

// What one boot says about itself.
struct BootFacts {
    std::string boot_id;
    std::string cmdline;
    std::string kernel_release;
    std::vector<std::string> log;  // this boot's kernel messages
    std::string now;               // UTC, ISO 8601
    std::optional<bool> hvo;       // /proc/sys/vm/hugetlb_optimize_vmemmap; nothing: no such file
    // This kernel's buddy allocator's largest block: which sizes its log's lines stand for.
    std::uint64_t largest_buddy_block_kb = model::kX86_64BuddyAllocator.largest_block_kb();
};

class Host {
  public:
    virtual ~Host() = default;
    virtual BootFacts this_boot() const = 0;
    // The sweep's own files (state, result), written atomically.
    virtual void write_file(const std::filesystem::path& path, const std::string& bytes) = 0;
    // Each throws RuntimeError naming the program and its message when it fails.
    virtual void load_kexec(const KexecImage& image, const std::string& cmdline) = 0;
    // Starts the loaded image; returns once the switch is under way (systemd) or never.
    virtual void exec_kexec() = 0;
    virtual void reboot() = 0;
    virtual void enable_unit() = 0;
    virtual void disable_unit() = 0;
};

// Why `path` (the state file, the program the unit runs) cannot be written into the unit, or
// nothing: a control character, or a blank or backslash at an end, which no quoting of a unit file
// keeps (systemd.unit(5)).
std::optional<std::string> unit_path_problem(std::string_view path);

// The unit file that runs `command` (the caller's `continue` of the sweep whose state file is
// `state`) early in each boot while the state file exists, each path escaped as systemd reads it
// (specifiers, variables, quoting). Throws RuntimeError for a path unit_path_problem refuses.
std::string unit_text(const std::vector<std::string>& command, const std::filesystem::path& state);

// The running machine: /proc, /sys and /dev/kmsg through `fs` (a fixture tree in tests);
// kexec and systemctl run, and the unit is written under fs's root in /etc/systemd/system,
// through `effects` (printed, not run, under --root and --dry-run). `state` is the state
// file's path as the machine sees it, which the unit names, and `continue_command` the command
// line the unit runs. Without systemd the loaded image is started with `kexec -e` and no unit
// is written.
class LiveHost : public Host {
  public:
    LiveHost(const KernelFs& fs, Effects& effects, bool systemd,
             std::vector<std::string> continue_command, std::filesystem::path state);
    BootFacts this_boot() const override;
    void write_file(const std::filesystem::path& path, const std::string& bytes) override;
    void load_kexec(const KexecImage& image, const std::string& cmdline) override;
    void exec_kexec() override;
    void reboot() override;
    void enable_unit() override;
    void disable_unit() override;

  private:
    std::vector<std::string> systemctl_argv(const std::string& verb) const;
    const KernelFs& fs_;
    Effects& effects_;
    bool systemd_;
    std::vector<std::string> continue_command_;
    std::filesystem::path state_;
};

}  // namespace hugetune::boot_sweep
