#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "model/text.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/sweep/pool_state.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::cli {

int run_restore(const Args& args) {
    po::options_description desc("Options");
    po::variables_map vm;
    if (!parse_options("restore", "hugetune restore", desc, args, vm))
        return 0;
    if (geteuid() != 0)
        throw NotRootError("restoring huge page pools needs root; run it with sudo");
    RunLock lock;  // BusyError while a sweep runs: its state file describes a live sweep
    auto recovered = recover_from_state_file(KernelFs("/"), lock);
    if (!recovered) {
        std::cout << "nothing to restore (" << state_file_path().string() << " is absent)\n";
        return 0;
    }
    if (recovered->report.writes_failed)
        throw RuntimeError("could not restore every value saved by the sweep (pid " +
                           std::to_string(recovered->state.pid) +
                           "): " + recovered->report.summary() + "; " + state_file_path().string() +
                           " is kept");
    std::cout << "restored huge page pools saved by an interrupted " << recovered->state.command
              << " (pid " << recovered->state.pid << ", started "
              << printable_text(recovered->state.started_at) << "): " << recovered->report.summary()
              << "\n";
    return 0;
}

void restore_before_command() {
    std::error_code ec;
    if (!std::filesystem::exists(state_file_path(), ec))
        return;
    if (geteuid() != 0) {
        std::cerr << "hugetune: note: an interrupted sweep left " << state_file_path().string()
                  << "; run 'hugetune restore' as root to put the huge page pools back\n";
        return;
    }
    try {
        auto lock = RunLock::try_acquire();
        if (!lock)
            return;  // a sweep is running and owns the file
        auto recovered = recover_from_state_file(KernelFs("/"), *lock);
        if (!recovered)
            return;
        std::cerr << "hugetune: restored huge page pools left by an interrupted "
                  << recovered->state.command << " (pid " << recovered->state.pid
                  << "): " << recovered->report.summary() << "\n";
        if (recovered->report.writes_failed)
            print_diagnostic("warning", "some values could not be restored; " +
                                            state_file_path().string() +
                                            " is kept; run 'hugetune restore'");
    } catch (const std::exception& e) {
        print_diagnostic("warning", e.what());
    }
}

}  // namespace hugetune::cli
