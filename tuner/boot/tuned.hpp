// tuned's part in the kernel command line (docs/kernel-facts.md "tuned"). The active profiles
// are named in /etc/tuned/active_profile; when tuned applies them, its bootloader plugin writes
// the merged `cmdline` options of their [bootloader] sections to /etc/tuned/bootcmdline as
// TUNED_BOOT_CMDLINE and into grub's $tuned_params, which comes after the rest of the command
// line, and it does so again every time it applies a profile. hugetune does not edit tuned's
// profiles: a profile switch re-applies every tuned setting, not only the boot parameter, so
// when tuned would give the kernel another value apply refuses and names the profile to add
// and the tuned-adm command that applies it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/boot/regenerate.hpp"
#include "tuner/kernel/kernel_fs.hpp"

namespace hugetune::boot {

inline constexpr std::string_view kTunedActiveProfile = "/etc/tuned/active_profile";
inline constexpr std::string_view kTunedBootCmdline = "/etc/tuned/bootcmdline";
// The grub variable through which tuned's command line reaches the kernel.
inline constexpr std::string_view kTunedParamsVar = "tuned_params";
// The profile apply's refusal asks for (/etc/tuned/hugetune/tuned.conf) and `fleet export
// --format tuned` writes: its [bootloader] section holds one line, tuned_profile_line(value).
inline constexpr std::string_view kTunedHugetuneProfile = "hugetune";
inline constexpr std::string_view kTunedBootloaderSection = "[bootloader]";
// "cmdline_hugetune=+hugepage_alloc_threads=N": tuned appends it to the command line.
std::string tuned_profile_line(const std::string& value);

struct TunedState {
    std::vector<std::string> active_profiles;  // empty: tuned is off or not installed
    std::optional<std::string> boot_cmdline;   // TUNED_BOOT_CMDLINE, when the file sets it
    bool active() const { return !active_profiles.empty(); }
    std::string profiles_text() const;  // "balanced" or "a b"
};

// Throws UsageError naming /etc/tuned/bootcmdline and its line when the file is not made of
// literal assignments.
TunedState read_tuned(const KernelFs& root);

// `tuned-adm profile ACTIVE...`: tuned applies its profiles again and rewrites what it put on
// the command line.
Argv tuned_reapply_command(const TunedState& tuned);

// `tuned-adm profile ACTIVE... hugetune`: the active profiles with one more that holds only
// [bootloader] cmdline_hugetune=+PARAM (tuned merges every cmdline* option, later ones after).
Argv tuned_profile_command(const TunedState& tuned);

struct TunedVerdict {
    std::vector<std::string> notes;
};

// Throws UsageError when tuned puts a hugepage_alloc_threads= other than `value` on the
// command line: what it puts there, and the profile and command that make it `value`. A tuned
// that puts `value` there already gets a note.
TunedVerdict check_tuned(const TunedState& tuned, const std::string& value);

// The warning for a tuned that is active and whose $tuned_params follows the value in the boot
// entries although it holds no hugepage_alloc_threads= now.
std::string tuned_follows_warning(const TunedState& tuned, const std::string& value);

}  // namespace hugetune::boot
