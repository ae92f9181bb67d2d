// Entry points of the commands; each lives in its own cmd_<name>.cpp.
#pragma once

#include "cli.hpp"

namespace hugetune::cli {

int run_probe(const Args& args);
int run_apply(const Args& args);
int run_rollback(const Args& args);
int run_verify(const Args& args);

}  // namespace hugetune::cli
