#include "commands.hpp"
#include "cli.hpp"

namespace hugetune::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> all = {
        {"probe", "show the machine: topology, CPU, kernel huge page facts", run_probe},
        {"sweep", "measure huge page allocation and zeroing at several threads per node",
         run_sweep_command},
        {"run", "the main job: probe, sweep, fit, write the report and summary", run_run},
        {"fit", "fit scaling curves to a sweep or CSV and recommend the thread count", run_fit},
        {"cmdline", "print the kernel parameter text of a report, for scripts", run_cmdline},
        {"restore", "put back huge page pools left changed by an interrupted sweep", run_restore},
    };
    return all;
}

}  // namespace hugetune::cli
