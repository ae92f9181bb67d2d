#include "tuner/system/effects.hpp"

#include <algorithm>

#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/process.hpp"
#include "tuner/system/root_path.hpp"

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
    return out;
}

Effects::Effects(fs::path root, bool dry_run, std::ostream& plan, SettingWords words)
    : root_(std::move(root)), dry_run_(dry_run), plan_(plan), words_(std::move(words)) {
    std::error_code ec;
    given_root_ = fs::absolute(root_, ec);
    const fs::path canonical = fs::weakly_canonical(root_, ec);
    live_ = !ec && canonical == fs::path("/");
    if (!ec)
        root_ = canonical;
}

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
    plan_ << *shown;
    planned_.push_back(*shown);
}

fs::path Effects::inside_root(const fs::path& path) const {
    if (live_)
        return path;
    std::error_code ec;
    const fs::path abs = path.is_absolute() ? path : fs::current_path(ec) / path;
    auto target = target_path_of(given_root_, abs);
    if (!target)
        target = target_path_of(root_, abs);
    if (!target)
        throw RuntimeError(
            Message(path.string() + " is outside the root " + root_.string() + ": under ") +
            Flag{"root"} + " nothing outside it is written; name a file inside it");
    // Its directories again as a chroot into the root finds them: a link on the way that leads
    // out of the root is followed inside it instead.
    return resolve_in_root(root_, *target, LastLink::keep);
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
                         : "  (not run: " + words_("root") + " " + root_.string() +
                               " is not this machine)"));
        return false;
    }
    execute(argv);
    return true;
}

bool Effects::run_inside_root(const Argv& argv) {
    if (live_ || argv.empty())
        return run(argv);
    Argv chrooted = {"chroot", root_.string()};
    chrooted.insert(chrooted.end(), argv.begin(), argv.end());
    if (dry_run_) {
        plan_line("would run: " + command_text(chrooted));
        return false;
    }
    execute(chrooted);
    return true;
}

bool Effects::write_file(const fs::path& named, std::string_view bytes,
                         const FileOwnership& ownership, const Shown& shown) {
    const fs::path path = inside_root(named);
    if (dry_run_) {
        plan(shown, "would write " + path.string());
        return false;
    }
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
        throw RuntimeError("cannot create " + path.parent_path().string() + ": " + ec.message());
    write_file_atomically(path, bytes, ownership);
    return true;
}

bool Effects::remove_file(const fs::path& named, const Shown& shown) {
    const fs::path path = inside_root(named);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec)))
        return false;
    if (dry_run_) {
        plan(shown, "would remove " + path.string());
        return false;
    }
    if (!fs::remove(path, ec) && ec)
        throw RuntimeError("cannot remove " + path.string() + ": " + ec.message());
    return true;
}

void Effects::remove_stale_temporaries_of(const fs::path& named) {
    if (!dry_run_)
        remove_stale_temporaries(inside_root(named));
}

}  // namespace hugetune
