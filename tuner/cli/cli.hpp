// The git-style command line: `hugetune <command> [options]`. Each command parses its
// arguments into a typed options struct and validates it before any work starts.
#pragma once

#include <boost/program_options.hpp>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune::cli {

using Args = std::vector<std::string>;

struct Command {
    std::string_view name;
    std::string_view summary;  // one line for `hugetune --help`
    int (*run)(const Args& args);
};

// Every command, in the order `hugetune --help` lists them (commands.cpp).
const std::vector<Command>& commands();

// The whole program; returns the process exit code.
int run_main(int argc, char** argv);

namespace po = boost::program_options;

// Parses `args` against `desc` (plus --help) for `command`. Unknown options, missing or
// malformed values become a UsageError naming the option and pointing at `--help`.
// Returns false when --help was given and the help text has been printed.
bool parse_options(std::string_view command, std::string_view usage,
                   const po::options_description& desc, const Args& args, po::variables_map& vm);

// A percentage such as "2" or "2%" in [0, 100), as a fraction; UsageError naming `option`.
double parse_percent(std::string_view option, const std::string& text);

// The value of a --root option: an existing directory, else a UsageError that says what the
// directory should be (`what`, e.g. "the root of a gathered tree").
std::filesystem::path root_option(const std::string& value, std::string_view what);

// For validators: "--name: problem; fix" as a UsageError.
[[noreturn]] void usage_error(std::string_view option, std::string_view problem);

}  // namespace hugetune::cli
