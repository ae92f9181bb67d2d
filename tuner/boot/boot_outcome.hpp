// What `hugetune apply` or `hugetune rollback` did, as one value: what was planned, written and
// run, the lines it has to say, and the error that stopped it. The command prints it and turns
// it into `--json`; the steps fill it as they happen, so that after a failure it holds what was
// planned and done up to it.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tuner/boot/boot_change.hpp"
#include "tuner/boot/ledger.hpp"

namespace hugetune::boot {

// Some text said, in the order said: a result (stdout; stderr under --json) or a diagnostic
// (stderr: notes, warnings, progress).
struct OutputText {
    bool diagnostic = false;
    std::string text;  // whole lines
};

struct BootOutcome {
    std::string setting;  // hugepage_alloc_threads=N
    std::string bootloader;
    std::vector<std::string> notes;
    std::vector<std::string> warnings;
    std::vector<std::string> files;  // target paths written, or (dry run) that would be
    std::vector<Argv> commands;      // the rebuild commands planned
    std::vector<Argv> not_run;       // of those, the ones not run
    bool written = false;            // every file and the ledger were written
    std::optional<Ledger> ledger;    // apply: the ledger written; rollback: the one undone
    std::optional<std::string> not_reached;
    std::vector<OutputText> output;
    std::exception_ptr failure;  // the typed error (errors.hpp) that stopped it; null if none
};

// The planned part of a change into `outcome`.
void record_plan(const BootChange& change, BootOutcome& outcome);

// Runs `steps`, which print results on their first stream and diagnostics on their second, and
// returns the outcome they filled, with what they printed and what they threw.
using BootSteps = std::function<void(BootOutcome&, std::ostream& out, std::ostream& err)>;
BootOutcome run_boot_steps(const BootSteps& steps);

}  // namespace hugetune::boot
