#include "cli/commands.hpp"
#include "cli/cli.hpp"

namespace hugetune::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> all = {
        {"probe", "show the machine: topology, CPU, kernel huge page facts", run_probe, true},
        {"sweep", "measure huge page allocation and zeroing at several threads per node",
         run_sweep_command, true},
        {"run", "the main job: probe, sweep, fit, write the report and summary", run_run, true},
        {"fit", "fit scaling curves to a sweep or CSV and recommend the thread count", run_fit},
        {"cmdline", "print the kernel parameter text of a report, for scripts", run_cmdline},
        {"apply", "write hugepage_alloc_threads= into the boot loader configuration", run_apply},
        {"rollback", "undo the last apply, byte for byte", run_rollback},
        {"verify", "after a reboot: check the boot log against the applied value", run_verify},
        {"boot-sweep", "measure the boot allocation at each thread count, one kexec boot each",
         run_boot_sweep, true},
        {"fleet", "the fleet database: store reports, one answer per SKU, outliers, export",
         run_fleet, false, fleet_holds_a_sku},
        {"restore", "put back huge page pools left changed by an interrupted sweep", run_restore},
    };
    return all;
}

}  // namespace hugetune::cli
