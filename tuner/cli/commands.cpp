#include "cli.hpp"
#include "commands.hpp"

namespace hugetune::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> all = {
        {"probe", "show the machine: topology, CPU, kernel huge page facts", run_probe},
        {"apply", "write hugepage_alloc_threads= into the boot loader configuration", run_apply},
        {"rollback", "undo the last apply, byte for byte", run_rollback},
        {"verify", "after a reboot: check the boot log against the applied value", run_verify},
    };
    return all;
}

}  // namespace hugetune::cli
