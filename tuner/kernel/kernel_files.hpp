// One accessor per kernel file that hugetune reads outside the pools' own directories, over a
// KernelFs root (the machine, or a fixture tree), in the manner of the kernel selftests'
// hugepage_settings.c: every reader of the running kernel's release, command line or memory
// counters asks here, so each file is read and parsed in one place.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tuner/kernel/kernel_fs.hpp"

namespace hugetune {

// /proc/sys/kernel/osrelease: "6.15.0-1-amd64"; nothing when it is absent or empty.
std::optional<std::string> running_kernel_release(const KernelFs& fs);

// /proc/cmdline as the kernel gives it (the trailing newline included); nothing when absent.
std::optional<std::string> running_kernel_cmdline(const KernelFs& fs);

// A counter of meminfo text in bytes: "MemAvailable:   24334624 kB" or a node's
// "Node 0 MemFree:   4288448 kB" for key "MemAvailable" or "MemFree".
std::optional<std::uint64_t> meminfo_bytes(std::string_view text, std::string_view key);

// /proc/meminfo's counter `key` in bytes ("MemTotal", "MemAvailable", "Hugepagesize").
std::optional<std::uint64_t> system_meminfo_bytes(const KernelFs& fs, std::string_view key);

// /sys/devices/system/node/node<N>/meminfo's counter `key` in bytes.
std::optional<std::uint64_t> node_meminfo_bytes(const KernelFs& fs, int node, std::string_view key);

}  // namespace hugetune
