#include "tuner/boot/tuned.hpp"

#include <algorithm>
#include <sstream>

#include "model/errors.hpp"
#include "tuner/boot/shell_fragment.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot {
namespace {

constexpr std::string_view kTunedCmdlineVar = "TUNED_BOOT_CMDLINE";

// tuned writes the file as NAME="value" lines (tuned/utils/commands.py,
// add_modify_option_in_file) and 00_tuned sources it, so it is read as the shell would.
std::optional<std::string> tuned_boot_cmdline(const std::string& text) {
    std::string where(kTunedBootCmdline);
    ShellFragment parsed;
    try {
        parsed = parse_shell_fragment(text);
    } catch (const ShellParseError& e) {
        throw UsageError(where + ":" + std::to_string(e.line()) +
                         ": not a file of assignments as tuned writes it (" + e.what() +
                         "); fix it by hand, then run hugetune again");
    }
    std::optional<std::string> value;
    for (const auto& a : parsed.assignments) {
        if (a.name != kTunedCmdlineVar)
            continue;
        bool literal = std::all_of(a.value.begin(), a.value.end(), [](const WordPiece& p) {
            return p.kind == WordPiece::Kind::literal;
        });
        if (!literal)
            throw UsageError(where + ":" + std::to_string(a.line) + ": " + a.name +
                             " uses an expansion, so its value cannot be known; tuned writes "
                             "literal text there: fix it by hand, then run hugetune again");
        value = literal_text(a.value);
    }
    return value;
}

}  // namespace

std::string tuned_profile_line(const std::string& value) {
    // tuned merges every option whose name starts with "cmdline"; "+" appends to the others.
    return "cmdline_hugetune=+" + alloc_threads_param(value);
}

std::string TunedState::profiles_text() const {
    std::string out;
    for (const auto& p : active_profiles)
        out += (out.empty() ? "" : " ") + p;
    return out;
}

TunedState read_tuned(const KernelFs& root) {
    TunedState t;
    if (auto line = root.read_line(kTunedActiveProfile)) {
        std::istringstream words(*line);
        for (std::string w; words >> w;)
            t.active_profiles.push_back(w);
    }
    if (auto text = root.read(kTunedBootCmdline))
        t.boot_cmdline = tuned_boot_cmdline(*text);
    return t;
}

Argv tuned_reapply_command(const TunedState& tuned) {
    Argv argv{"tuned-adm", "profile"};
    argv.insert(argv.end(), tuned.active_profiles.begin(), tuned.active_profiles.end());
    return argv;
}

Argv tuned_profile_command(const TunedState& tuned) {
    Argv argv{"tuned-adm", "profile"};
    for (const auto& p : tuned.active_profiles)
        if (p != kTunedHugetuneProfile)
            argv.push_back(p);
    argv.push_back(std::string(kTunedHugetuneProfile));
    return argv;
}

TunedVerdict check_tuned(const TunedState& tuned, const std::string& value) {
    TunedVerdict verdict;
    if (!tuned.boot_cmdline)
        return verdict;
    auto theirs = kernel_alloc_threads(std::string_view(*tuned.boot_cmdline)).value;
    if (!theirs)
        return verdict;
    std::string from = std::string(kTunedBootCmdline) + ": tuned puts " +
                       alloc_threads_param(*theirs) + " on the kernel command line (" +
                       std::string(kTunedCmdlineVar) + ", through grub's $" +
                       std::string(kTunedParamsVar) + "), after the value hugetune writes";
    if (*theirs == value) {
        verdict.notes.push_back(from +
                                "; it is the value asked for, and rollback leaves it to "
                                "tuned");
        return verdict;
    }
    if (!tuned.active())
        throw UsageError(from + ", but no tuned profile is active (" +
                         std::string(kTunedActiveProfile) +
                         "), so it is left from an earlier one: remove it from " +
                         std::string(kTunedCmdlineVar) + " by hand, then run hugetune again");
    throw UsageError(
        from + ", and puts it there again whenever it applies its profile (" +
        tuned.profiles_text() + "); hugetune does not edit tuned profiles: create /etc/tuned/" +
        std::string(kTunedHugetuneProfile) + "/tuned.conf holding the two lines '" +
        std::string(kTunedBootloaderSection) + "' and '" + tuned_profile_line(value) +
        "', run: " + format_command(tuned_profile_command(tuned)) + ", then run hugetune again");
}

std::string tuned_follows_warning(const TunedState& tuned, const std::string& value) {
    return "tuned (profile " + tuned.profiles_text() + ") appends $" +
           std::string(kTunedParamsVar) + " after " + alloc_threads_param(value) +
           " in the boot entries; it holds no " + std::string(kAllocThreadsParam) +
           "= now, but a tuned profile whose [bootloader] cmdline sets one would override this "
           "value at the next boot";
}

}  // namespace hugetune::boot
