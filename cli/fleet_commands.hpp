// The `hugetune fleet` subcommands, one file each (cmd_fleet_<name>.cpp); cmd_fleet.cpp
// dispatches.
#pragma once

#include "cli/cli.hpp"

namespace hugetune::cli {

int run_fleet_ingest(const Args& args);
int run_fleet_skus(const Args& args);
int run_fleet_recommend(const Args& args);
int run_fleet_hosts(const Args& args);
int run_fleet_export(const Args& args);
int run_fleet_runs(const Args& args);
int run_fleet_forget(const Args& args);
int run_fleet_plan(const Args& args);

}  // namespace hugetune::cli
