// `--json` of the commands that change the machine (apply, rollback, restore): one object on
// stdout whatever happens, carrying the exit code the process returns, so a script reads the
// outcome from one place; a failure still prints its `hugetune: error:` line on stderr.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "tuner/boot/apply.hpp"

namespace hugetune::cli {

// Runs `body`. When `json` is true by the time it returns or throws (the flag is read while it
// parses), prints describe() with "exit_code" and "error" (null, or {"message"}) added; an
// error is then thrown on for main to print and return.
int with_json_result(const bool& json, const std::function<int()>& body,
                     const std::function<nlohmann::json()>& describe);

// --json, with the help text every such command shares.
void add_json_result_option(boost::program_options::options_description& desc, bool& json);

// apply's and rollback's object: what was planned, written and run, and the ledger entry.
nlohmann::json boot_outcome_json(std::string_view command, bool dry_run,
                                 const boot::BootOutcome& outcome);

// Prints what apply or rollback said, in order: results on stdout (on stderr with `json`, where
// stdout holds the object), diagnostics on stderr. Then throws on the error that stopped it, for
// with_json_result and main; returns the exit code of a command that finished.
int print_boot_outcome(const boot::BootOutcome& outcome, bool json);

}  // namespace hugetune::cli
