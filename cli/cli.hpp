// The git-style command line: `hugetune <command> [options]`. Each command parses its
// arguments into a typed options struct and validates it before any work starts.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "model/errors.hpp"

namespace hugetune::cli {

using Args = std::vector<std::string>;

struct Command {
    std::string_view name;
    std::string_view summary;  // one line for `hugetune --help`
    int (*run)(const Args& args);
    // Reads or changes the live huge page pools: a state file an interrupted sweep left is
    // restored before it runs (restore_before_command). Commands on files, reports, boot
    // configuration or the fleet database leave it for `restore` and the next such command.
    bool uses_pools = false;
    // Holds a fleet's SKU in memory with these arguments (an answer of 100,000 hosts): run again
    // with huge pages for the heap first (tuner/system/own_binary.hpp).
    bool (*holds_a_sku)(const Args& args) = nullptr;
};

// Every command, in the order `hugetune --help` lists them (commands.cpp).
const std::vector<Command>& commands();

// The whole program; returns the process exit code.
int run_main(int argc, char** argv);

namespace po = boost::program_options;

// Parses `args` against `desc` (plus --help) for `command`. Unknown options, missing or
// malformed values become a UsageError naming the option and pointing at `--help`.
// Returns false when --help was given and the help text has been printed. Words that are not
// options are refused unless `positional` names where they go, in `hidden` (options that
// --help does not list).
bool parse_options(std::string_view command, std::string_view usage,
                   const po::options_description& desc, const Args& args, po::variables_map& vm,
                   const po::positional_options_description* positional = nullptr,
                   const po::options_description* hidden = nullptr);

// "Exit codes:" and one line per code, as every --help ends.
std::string exit_codes_text();

// A whole number from 0 up, as typed: digits only. Boost would read "-1" into an unsigned
// option as its largest value, so unsigned options take text and come here. UsageError
// naming `option` otherwise.
std::uint64_t parse_unsigned(std::string_view option, const std::string& text);

// A percentage such as "2" or "2%" in [0, 100), as a fraction; UsageError naming `option`.
double parse_percent(std::string_view option, const std::string& text);

// The items of a list option's value ("--phases alloc,zero"), as model's comma_items splits
// every list: UsageError "OPTION: 'TEXT' has an empty item; ..." for a comma first, last or
// doubled, the same for every list option. An empty value has no item: the caller says what to
// give.
std::vector<std::string> list_items(std::string_view option, const std::string& text);

// A list of thread counts, "1,2,4,8", as model::parse_thread_counts reads it (its range is the
// caller's: per node or in total); UsageError "OPTION: 'x' is not a thread count; give a list
// like 1,2,4,8" for an item that is not one, "OPTION: give a list like 1,2,4,8" for no item.
std::vector<int> parse_thread_list(std::string_view option, const std::string& text);

// A positive finite decimal number such as "30" or "0.5": UsageError "OPTION: give a positive
// WHAT, e.g. EXAMPLE; 'TEXT' is not one" for anything else.
double parse_positive_number(std::string_view option, const std::string& text,
                             std::string_view what, std::string_view example);

// A size in GiB such as "64" or "0.5": a positive finite decimal number. UsageError "OPTION:
// give a positive size in GiB, e.g. EXAMPLE" for anything else, the value quoted after it.
double parse_gib(std::string_view option, const std::string& text, std::string_view example);
// The value of a size option in GiB ("--gib G"): read by parse_gib into `gib` when the options
// are parsed, so every such option takes the same text and refuses it with the same message.
po::typed_value<std::string>* gib_value(std::string_view option, double& gib,
                                        std::string_view example);

// An option's help text: what it does, then "(default D)" or "(default D; RANGE)", the form
// README.md states them in (tests/cli/readme_options.sh compares the two).
std::string option_help(std::string_view what, std::string_view default_text,
                        std::string_view range = {});

// --tolerance P of `fit` and `run`; its default is the model's (model::RecommendOptions).
void add_tolerance_option(po::options_description& desc, std::string& text);

// The value of a --root option naming a tree gathered from another machine (probe, sweep
// --dry-run, verify).
std::filesystem::path gathered_root_option(const std::string& value);

// The value of a --root option: an existing directory, else a UsageError that says what the
// directory should be (`what`, e.g. "the root of a gathered tree").
std::filesystem::path root_option(const std::string& value, std::string_view what);

// "hugetune: KIND: MESSAGE" on stderr (kind "note" or "warning"), with the message's control
// characters escaped (model/text.hpp printable_text).
void print_diagnostic(std::string_view kind, std::string_view message);

// For validators: "--name: problem; fix" as a UsageError.
[[noreturn]] void usage_error(std::string_view option, std::string_view problem);

// What the exception being handled tells the user: the text after "hugetune: error: " and the
// exit code. `typed`: a user error (an Error of any layer); any other exception is a failure
// with its own text. The one place an error becomes a line; call it only inside a catch block.
struct ErrorReport {
    std::string message;
    ExitCode code = ExitCode::failure;
    bool typed = false;
};
ErrorReport current_error();

}  // namespace hugetune::cli
