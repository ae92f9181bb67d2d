// Entry points of the commands; each lives in its own cmd_<name>.cpp.
#pragma once

#include "cli/cli.hpp"

namespace hugetune::cli {

int run_probe(const Args& args);
int run_fit(const Args& args);
int run_run(const Args& args);
int run_cmdline(const Args& args);
int run_sweep_command(const Args& args);
int run_restore(const Args& args);

// Run before every command that uses the pools (Command::uses_pools), except with --help,
// --dry-run or --root, which must not change the machine:
// when an interrupted sweep left its state file and no sweep holds the lock, put the pools back
// first and say so on stderr (root only).
void restore_before_command();
int run_apply(const Args& args);
int run_rollback(const Args& args);
int run_verify(const Args& args);
int run_boot_sweep(const Args& args);
int run_fleet(const Args& args);
// The fleet subcommands that hold a SKU's runs in memory (an answer, the hosts' checks), not
// their --help.
bool fleet_holds_a_sku(const Args& args);

}  // namespace hugetune::cli
