#include "cli.hpp"
#include "commands.hpp"

namespace hugetune::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> all = {
        {"probe", "show the machine: topology, CPU, kernel huge page facts", run_probe},
        {"sweep", "measure huge page allocation and zeroing at several threads per node",
         run_sweep_command},
        {"restore", "put back huge page pools left changed by an interrupted sweep", run_restore},
    };
    return all;
}

}  // namespace hugetune::cli
