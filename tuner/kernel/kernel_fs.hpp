// The one module through which hugetune reads and writes /proc and /sys, and reads the other
// files of a tree. It takes a root directory so that tests point it at fixture trees
// (tests/fixtures/*) instead of the machine, and reaches every file through it (RootDir,
// tuner/system/root_dir.hpp): no link in a --root tree leads out of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/kernel/kernel_log.hpp"
#include "tuner/system/root_dir.hpp"

namespace hugetune {

// The most hugetune reads of one file of a tree that it reads whole (/proc, /sys, /etc, /boot):
// the largest of them on a real machine, a grub.cfg or the /proc/cpuinfo of thousands of CPUs,
// holds a few MiB.
inline constexpr std::size_t kMaxTreeFileBytes = std::size_t{64} << 20;

class KernelFs {
  public:
    // Throws as RootDir::open does.
    explicit KernelFs(const std::filesystem::path& root = "/");

    // The tree's directory as given: for messages and the programs that take it.
    const std::filesystem::path& root() const { return root_.path(); }
    const RootDir& root_dir() const { return root_; }
    bool is_live() const { return root_.is_live(); }  // root is "/": the running machine

    // Paths below are absolute paths on the target machine, e.g. "/proc/cmdline", opened inside
    // the root; a link loop on the way throws RuntimeError naming it. shown() is one for a
    // message.
    std::string shown(std::string_view abs) const { return root_.shown(abs); }
    bool exists(std::string_view abs) const;

    // Whole file, or nothing when it is absent, a directory or unreadable. Throws RuntimeError
    // naming it when it is another kind of file than a regular one (a FIFO, a device: opened
    // without waiting, never read) or holds more than kMaxTreeFileBytes.
    std::optional<std::string> read(std::string_view abs) const;
    // First line without the newline, surrounding blanks trimmed.
    std::optional<std::string> read_line(std::string_view abs) const;
    // A decimal unsigned integer file (sysfs counters). Absent or not a number: nothing.
    std::optional<std::uint64_t> read_u64(std::string_view abs) const;
    // Names in a directory, sorted; empty when it is absent. Throws RuntimeError naming it when
    // it is there but cannot be listed.
    std::vector<std::string> list(std::string_view abs_dir) const;

    // Writes a value the way `echo N > file` does; throws RuntimeError naming the file and
    // errno on failure (sysfs reports a refused value through write()).
    void write_u64(std::string_view abs, std::uint64_t value) const;

    // Kernel log messages of this boot, oldest first, without timestamps or prefixes, read as
    // a stream within kernel_log.hpp's bounds. On the live machine from /dev/kmsg, else
    // `journalctl -k -b`; under a fixture root from the file dev/kmsg (kmsg records or dmesg
    // lines; a device or FIFO there is read up to kMaxTreeFileBytes). No messages when nothing
    // could be read.
    KernelLog kernel_log() const;

  private:
    // RootDir::open_path; throws RuntimeError naming the file for a link loop.
    OwnedFd open(std::string_view abs, int flags) const;
    KernelLog tree_kernel_log() const;
    RootDir root_;
};

}  // namespace hugetune
