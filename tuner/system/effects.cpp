#include "tuner/system/effects.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/process.hpp"

namespace hugetune {
namespace {

namespace fs = std::filesystem;

// The end of a failed program's message, on one line, for the error that names it.
std::string message_tail(const ProcessResult& r) {
    std::string why(trim(r.err.empty() ? r.out : r.err));
    if (why.size() > 300)
        why = "..." + why.substr(why.size() - 300);
    for (char& c : why)
        if (c == '\n' || c == '\r')
            c = ' ';
    return why;
}

bool plain_word(std::string_view word) {
    return !word.empty() && word.find_first_not_of(
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                "0123456789_=.,:/+@%-") == std::string_view::npos;
}

}  // namespace

std::string command_text(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty())
            out += ' ';
        if (plain_word(a)) {
            out += a;
            continue;
        }
        out += '\'';
        for (char c : a)
            out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    // A word from a tree (a boot entry's kernel path) may hold a line break or an escape
    // sequence: shown escaped, like every text hugetune prints.
    return printable_text(out);
}

Effects::Effects(const RootDir& root, bool dry_run, std::ostream& plan, SettingWords words)
    : root_(root),
      live_(root.is_live()),
      dry_run_(dry_run),
      plan_(plan),
      words_(std::move(words)) {}

void Effects::plan_line(const std::string& line) {
    plan_ << printable_text(line) << "\n";
    planned_.push_back(line);
}

void Effects::plan(const Shown& shown, const std::string& line) {
    if (!shown) {
        plan_line(line);
        return;
    }
    if (shown->empty())
        return;
    plan_ << printable_lines(*shown);
    planned_.push_back(*shown);
}

namespace {

// Runs `argv` now; throws RuntimeError naming it when it cannot start or fails.
void execute(const Effects::Argv& argv) {
    const ProcessResult r = run_program(argv);
    if (r.exit_code == 0)
        return;
    const std::string why = message_tail(r);
    if (r.exit_code < 0)
        throw RuntimeError("cannot run " + argv[0] + (why.empty() ? "" : " (" + why + ")") +
                           "; install it, or do this step by hand: " + command_text(argv));
    throw RuntimeError(command_text(argv) + " failed with exit code " +
                       std::to_string(r.exit_code) + (why.empty() ? "" : ": " + why));
}

}  // namespace

bool Effects::run(const Argv& argv) {
    if (argv.empty())
        throw RuntimeError("no program to run");
    if (!runs_programs()) {
        // Under --root the reason is the root, with --dry-run as without: a dry run says what
        // the real run would do.
        plan_line("would run: " + command_text(argv) +
                  (live_ ? ""
                         : "  (not run: " + words_("root") + " " + root_.path().string() +
                               " is not this machine)"));
        return false;
    }
    execute(argv);
    return true;
}

bool Effects::run_inside_root(const Argv& argv) {
    if (live_ || argv.empty())
        return run(argv);
    Argv chrooted = {"chroot", root_.path().string()};
    chrooted.insert(chrooted.end(), argv.begin(), argv.end());
    if (dry_run_) {
        plan_line("would run: " + command_text(chrooted));
        return false;
    }
    execute(chrooted);
    return true;
}

namespace {

// The directory and name of `target_path`; throws for one that names no file.
std::pair<std::string, std::string> entry_of(const RootDir& root, std::string_view target_path) {
    auto split = split_target_path(target_path);
    if (!split)
        throw RuntimeError(root.shown(target_path) + " names no file");
    return std::move(*split);
}

}  // namespace

bool Effects::write_file(std::string_view target_path, std::string_view bytes,
                         const FileOwnership& ownership, const Shown& shown) {
    const auto [dir, name] = entry_of(root_, target_path);
    if (dry_run_) {
        plan(shown, "would write " + root_.shown(target_path));
        return false;
    }
    root_.make_directories(dir).write_file(name, bytes, ownership);
    return true;
}

bool Effects::remove_file(std::string_view target_path, const Shown& shown) {
    const auto [dir_path, name] = entry_of(root_, target_path);
    const auto dir = root_.directory(dir_path);
    if (!dir || !dir->entry_status(name))
        return false;
    if (dry_run_) {
        plan(shown, "would remove " + root_.shown(target_path));
        return false;
    }
    return dir->remove_entry(name);
}

void Effects::remove_stale_temporaries_of(std::string_view target_path) {
    if (dry_run_)
        return;
    const auto [dir_path, name] = entry_of(root_, target_path);
    if (const auto dir = root_.directory(dir_path))
        dir->remove_stale_temporaries(name);
}

}  // namespace hugetune
