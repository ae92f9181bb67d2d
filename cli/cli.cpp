#include "cli/cli.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <limits>

#include "cli/commands.hpp"
#include "cli/help_formats.hpp"
#include "cli/setting_flags.hpp"
#include "model/alloc_threads.hpp"
#include "model/errors.hpp"
#include "model/recommend.hpp"
#include "model/text.hpp"
#include "tuner/system/build_info.hpp"
#include "tuner/system/own_binary.hpp"

namespace hugetune::cli {

namespace {

struct ExitCodeMeaning {
    ExitCode code;
    std::string_view meaning;
};

constexpr ExitCodeMeaning kExitCodeMeanings[] = {
    {ExitCode::ok, "success"},
    {ExitCode::failure, "runtime failure (I/O error, the kernel refused a change, ...)"},
    {ExitCode::usage, "usage error: unknown command or option, bad value, bad input file"},
    {ExitCode::not_root, "the command needs root"},
    {ExitCode::unsupported, "this kernel lacks what the command needs (e.g. no hugetlb support)"},
    {ExitCode::busy, "another hugetune is running (lock held)"},
    {ExitCode::internal, "internal error: a bug in hugetune, not in the input or the machine"},
    {ExitCode::interrupted, "interrupted; the machine was restored before exiting"},
};

// `--help` only prints, `--dry-run` prints a plan, `--root DIR` works on a tree: none of them
// may change the machine, so none restores a killed sweep's pools first. Nor does a shortened
// spelling of one ("--dry", "--roo=DIR"), which the command then refuses (no option is
// abbreviated: parse_options).
bool asks_for_no_effect(const Args& args) {
    const auto shortened = [](std::string_view given, std::string_view option) {
        return given.size() > 2 && option.starts_with(given);
    };
    return std::any_of(args.begin(), args.end(), [&](const std::string& a) {
        const std::string_view name = std::string_view(a).substr(0, a.find('='));
        return a == "-h" || shortened(name, "--help") || shortened(name, "--dry-run") ||
               shortened(name, "--root");
    });
}

}  // namespace

// The numbers come from ExitCode itself, so the help cannot drift from what main returns.
std::string exit_codes_text() {
    std::string text = "Exit codes:\n";
    for (const auto& [code, meaning] : kExitCodeMeanings) {
        std::string number = std::to_string(static_cast<int>(code));
        number.resize(std::max<std::size_t>(number.size() + 1, 5), ' ');
        text += "  " + number + std::string(meaning) + "\n";
    }
    return text;
}

namespace {

void print_main_help(std::ostream& out) {
    out << "usage: hugetune <command> [options]\n"
           "       hugetune <command> --help\n"
           "       hugetune --version\n\n"
           "Measures how fast this machine's kernel allocates and zeroes huge pages at several\n"
           "thread counts per NUMA node and recommends the boot parameter\n"
           "hugepage_alloc_threads=.\n\n"
           "Commands:\n";
    std::size_t width = 0;
    for (const auto& c : commands())
        width = std::max(width, c.name.size() + 2);
    for (const auto& c : commands()) {
        out << "  " << c.name;
        for (std::size_t i = c.name.size(); i < width; ++i)
            out << ' ';
        out << c.summary << "\n";
    }
    out << "\n" << exit_codes_text();
}

std::string command_list() {
    return join(commands(), ", ", [](const Command& c) { return c.name; });
}

// Messages repeat file names, values and file contents: escaped here as well as where they are
// built, so no message can write a control sequence to the terminal or end up on two lines.
void print_error(std::string_view message) {
    std::cerr << "hugetune: error: " << printable_text(message) << "\n";
}

}  // namespace

void print_diagnostic(std::string_view kind, std::string_view message) {
    std::cerr << "hugetune: " << kind << ": " << printable_text(message) << "\n";
}

[[noreturn]] void usage_error(std::string_view option, std::string_view problem) {
    throw UsageError(std::string(option) + ": " + std::string(problem));
}

std::uint64_t parse_unsigned(std::string_view option, const std::string& text) {
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end)
        usage_error(option, "'" + text + "' is not a whole number from 0 to " +
                                std::to_string(std::numeric_limits<std::uint64_t>::max()));
    return value;
}

double parse_percent(std::string_view option, const std::string& text) {
    std::string number = text;
    if (!number.empty() && number.back() == '%')
        number.pop_back();
    std::size_t used = 0;
    double percent = -1;
    try {
        percent = std::stod(number, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != number.size() || !std::isfinite(percent) || percent < 0 ||
        percent >= 100)
        usage_error(option, "'" + text + "' is not a percentage in [0, 100); e.g. 2");
    return percent / 100;
}

std::vector<std::string> list_items(std::string_view option, const std::string& text) {
    std::vector<std::string> items;
    for (const std::string_view item : comma_items(text)) {
        if (item.empty())
            usage_error(option, "'" + text +
                                    "' has an empty item; separate the values by single commas, "
                                    "with none before the first or after the last");
        items.emplace_back(item);
    }
    return items;
}

std::vector<int> parse_thread_list(std::string_view option, const std::string& text) {
    list_items(option, text);
    const ThreadCountList list = parse_thread_counts(text);
    if (list.not_a_count)
        usage_error(option,
                    "'" + *list.not_a_count + "' is not a thread count; give a list like 1,2,4,8");
    if (list.counts.empty())
        usage_error(option, "give a list like 1,2,4,8");
    return list.counts;
}

double parse_positive_number(std::string_view option, const std::string& text,
                             std::string_view what, std::string_view example) {
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || !(value > 0) || !std::isfinite(value))
        usage_error(option, "give a positive " + std::string(what) + ", e.g. " +
                                std::string(example) + "; '" + text + "' is not one");
    return value;
}

double parse_gib(std::string_view option, const std::string& text, std::string_view example) {
    return parse_positive_number(option, text, "size in GiB", example);
}

po::typed_value<std::string>* gib_value(std::string_view option, double& gib,
                                        std::string_view example) {
    return po::value<std::string>()->value_name("G")->notifier(
        [option = std::string(option), example = std::string(example),
         &gib](const std::string& text) { gib = parse_gib(option, text, example); });
}

std::string option_help(std::string_view what, std::string_view default_text,
                        std::string_view range) {
    std::string text = std::string(what) + " (default " + std::string(default_text);
    if (!range.empty())
        text += "; " + std::string(range);
    return text + ")";
}

void add_tolerance_option(po::options_description& desc, std::string& text) {
    desc.add_options()(
        "tolerance", po::value(&text)->value_name("P"),
        option_help("percent: take the fewest threads within P% of the best predicted time",
                    number_text(model::RecommendOptions{}.tolerance * 100))
            .c_str());
}

std::filesystem::path gathered_root_option(const std::string& value) {
    return root_option(value, "the root of a gathered tree");
}

std::filesystem::path root_option(const std::string& value, std::string_view what) {
    std::error_code ec;
    if (!std::filesystem::is_directory(value, ec))
        usage_error("--root", value + " is not a directory; give " + std::string(what));
    // The same directory as "/" (a link to it, a ".." that climbs to it, a bind mount of it)
    // would be this machine under the name of a tree: its programs would run, which --root
    // never does.
    struct stat given {
    }, slash{};
    if (::stat(value.c_str(), &given) == 0 && ::stat("/", &slash) == 0 &&
        given.st_dev == slash.st_dev && given.st_ino == slash.st_ino)
        usage_error("--root", printable_text(value) +
                                  " is this machine's own /, and --root names another tree; "
                                  "leave --root out to work on this machine");
    return value;
}

namespace {

// A path option given as "" (as `--root "$UNSET"` gives it) is refused before anything runs: an
// empty --root would otherwise mean this machine's own boot configuration, an empty file name
// the current directory. Path options are those whose value is named DIR or FILE in --help.
void refuse_empty_paths(const po::options_description& desc, const po::variables_map& vm) {
    for (const auto& option : desc.options()) {
        const std::string name = option->long_name();
        const std::string kind = option->semantic()->name();
        const bool dir = kind.starts_with("DIR"), file = kind.starts_with("FILE");
        if ((!dir && !file) || !vm.count(name) || vm[name].defaulted())
            continue;
        const boost::any& value = vm[name].value();
        bool empty = false;
        if (const auto* text = boost::any_cast<std::string>(&value))
            empty = text->empty();
        else if (const auto* texts = boost::any_cast<std::vector<std::string>>(&value))
            empty = std::any_of(texts->begin(), texts->end(),
                                [](const std::string& t) { return t.empty(); });
        if (empty)
            usage_error("--" + name, std::string("is empty; give a ") +
                                         (dir ? "directory" : "file") + " or leave the option out");
    }
}

}  // namespace

bool parse_options(std::string_view command, std::string_view usage,
                   const po::options_description& desc, const Args& args, po::variables_map& vm,
                   const po::positional_options_description* positional,
                   const po::options_description* hidden) {
    po::options_description all;
    all.add_options()("help,h", "show this help and exit");
    all.add(desc);
    po::options_description parsed;
    parsed.add(all);
    if (hidden)
        parsed.add(*hidden);
    std::string hint = "; see 'hugetune " + std::string(command) + " --help'";
    try {
        // Without `positional` a stray word is an error, not silently ignored.
        const po::positional_options_description none;
        // No abbreviations: "--roo" guessed as --root, or "--dry" as --dry-run, would be an
        // option the user never spelled, and a later option's name could take over one.
        po::store(po::command_line_parser(args)
                      .style(po::command_line_style::default_style &
                             ~po::command_line_style::allow_guessing)
                      .options(parsed)
                      .positional(positional ? *positional : none)
                      .run(),
                  vm);
        if (vm.count("help")) {
            print_command_help(std::cout, command, usage, all);
            return false;
        }
        po::notify(vm);
        refuse_empty_paths(parsed, vm);
    } catch (const po::unknown_option& e) {
        throw UsageError("unknown option '" + e.get_option_name() + "' for '" +
                         std::string(command) + "'" + hint);
    } catch (const po::too_many_positional_options_error&) {
        throw UsageError("unexpected argument for '" + std::string(command) +
                         "' (options start with --)" + hint);
    } catch (const po::error& e) {
        throw UsageError(std::string(e.what()) + hint);
    }
    return true;
}

int run_main(int argc, char** argv) {
    Args args(argv + 1, argv + argc);
    try {
        if (args.empty()) {
            print_main_help(std::cerr);
            return static_cast<int>(ExitCode::usage);
        }
        const std::string& first = args.front();
        if (first == "--help" || first == "-h" || first == "help") {
            print_main_help(std::cout);
            return 0;
        }
        // Hidden: the build generates the man pages and the completion script from these.
        if (first == "--help-roff")
            return print_man_sections(Args(args.begin() + 1, args.end()));
        if (first == "--bash-completion")
            return print_bash_completion();
        if (first == "--version" || first == "-V") {
            std::cout << "hugetune " << tool_version_line() << "\n";
            return 0;
        }
        for (const auto& c : commands()) {
            if (first == c.name) {
                Args rest(args.begin() + 1, args.end());
                // A sweep killed by SIGKILL or a crash left its state file: restore first.
                if (c.uses_pools && !asks_for_no_effect(rest))
                    restore_before_command();
                if (c.holds_a_sku && c.holds_a_sku(rest))
                    run_again_with_huge_heap_pages(argv);
                return c.run(rest);
            }
        }
        if (first.starts_with("-"))
            throw UsageError("unknown option '" + first + "'; give a command first (" +
                             command_list() + ") or see 'hugetune --help'");
        throw UsageError("unknown command '" + first + "'; commands are: " + command_list());
    } catch (const std::exception&) {
        const ErrorReport error = current_error();
        print_error(error.message);
        return static_cast<int>(error.code);
    }
}

ErrorReport current_error() {
    try {
        throw;
    } catch (const Error& e) {
        return {error_text(e), e.code(), true};
    } catch (const std::logic_error& e) {
        // What the code itself rules out: a precondition the caller had to meet, an index that
        // had to exist. Never the user's mistake, so not exit 1 or 2 like one.
        return {std::string("internal error: ") + e.what() +
                    "; this is a bug in hugetune, not in the input or the machine: please report "
                    "it with the command line that gave it",
                ExitCode::internal, false};
    } catch (const std::exception& e) {
        return {e.what(), ExitCode::failure, false};
    }
}

}  // namespace hugetune::cli
