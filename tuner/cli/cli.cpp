#include "tuner/cli/cli.hpp"

#include <cmath>
#include <iostream>
#include <sstream>

#include "tuner/cli/commands.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::cli {

namespace {

constexpr std::string_view kExitCodes =
    "Exit codes:\n"
    "  0    success\n"
    "  1    runtime failure (I/O error, the kernel refused a change, ...)\n"
    "  2    usage error: unknown command or option, bad value, bad input file\n"
    "  3    the command needs root\n"
    "  4    this kernel lacks what the command needs (e.g. no hugetlb support)\n"
    "  5    another hugetune is running (lock held)\n"
    "  130  interrupted; the machine was restored before exiting\n";

void print_main_help(std::ostream& out) {
    out << "usage: hugetune <command> [options]\n"
           "       hugetune <command> --help\n"
           "       hugetune --version\n\n"
           "Measures how fast this machine's kernel allocates and zeroes huge pages at several\n"
           "thread counts per NUMA node and recommends the boot parameter\n"
           "hugepage_alloc_threads=.\n\n"
           "Commands:\n";
    for (const auto& c : commands()) {
        out << "  " << c.name;
        for (std::size_t i = c.name.size(); i < 10; ++i)
            out << ' ';
        out << c.summary << "\n";
    }
    out << "\n" << kExitCodes;
}

std::string command_list() {
    std::string names;
    for (const auto& c : commands()) {
        if (!names.empty())
            names += ", ";
        names += c.name;
    }
    return names;
}

}  // namespace

[[noreturn]] void usage_error(std::string_view option, std::string_view problem) {
    throw UsageError(std::string(option) + ": " + std::string(problem));
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

std::filesystem::path root_option(const std::string& value, std::string_view what) {
    std::error_code ec;
    if (!std::filesystem::is_directory(value, ec))
        usage_error("--root", value + " is not a directory; give " + std::string(what));
    return value;
}

bool parse_options(std::string_view command, std::string_view usage,
                   const po::options_description& desc, const Args& args, po::variables_map& vm) {
    po::options_description all;
    all.add_options()("help,h", "show this help and exit");
    all.add(desc);
    std::string hint = "; see 'hugetune " + std::string(command) + " --help'";
    try {
        // No positional arguments: a stray word is an error, not silently ignored.
        po::store(po::command_line_parser(args).options(all).positional({}).run(), vm);
        if (vm.count("help")) {
            std::cout << "usage: " << usage << "\n\n" << all << "\n" << kExitCodes;
            return false;
        }
        po::notify(vm);
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
        if (first == "--version" || first == "-V") {
            std::cout << "hugetune " << HUGETUNE_VERSION << "\n";
            return 0;
        }
        for (const auto& c : commands()) {
            if (first == c.name) {
                // A sweep killed by SIGKILL or a crash left its state file: restore first.
                if (c.name != "restore")
                    restore_before_command();
                return c.run(Args(args.begin() + 1, args.end()));
            }
        }
        if (first.starts_with("-"))
            throw UsageError("unknown option '" + first + "'; give a command first (" +
                             command_list() + ") or see 'hugetune --help'");
        throw UsageError("unknown command '" + first + "'; commands are: " + command_list());
    } catch (const Error& e) {
        std::cerr << "hugetune: error: " << e.what() << "\n";
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        std::cerr << "hugetune: error: " << e.what() << "\n";
        return static_cast<int>(ExitCode::failure);
    }
}

}  // namespace hugetune::cli
