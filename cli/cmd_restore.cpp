#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/json_result.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/sweep/pool_state.hpp"
#include "tuner/system/privilege.hpp"

namespace hugetune::cli {

namespace {

nlohmann::json restore_json(const std::optional<Recovery>& recovered) {
    nlohmann::json result = {{"command", "restore"},
                             {"state_file", state_file_path().string()},
                             {"restored", recovered.has_value()}};
    if (!recovered)
        return result;
    const SavedState& s = recovered->state;
    result["sweep"] = {{"command", s.command}, {"pid", s.pid}, {"started_at", s.started_at}};
    result["changes"] = recovered->report.changes;
    result["problems"] = recovered->report.problems;
    return result;
}

int restore_pools_now(const Args& args, bool& json, std::optional<Recovery>& recovered) {
    po::options_description desc("Options");
    add_json_result_option(desc, json);
    po::variables_map vm;
    if (!parse_options("restore", "hugetune restore [--json]", desc, args, vm))
        return 0;
    std::ostream& out = json ? std::cerr : std::cout;
    require_root("restoring huge page pools needs root; run it with sudo");
    RunLock lock;  // BusyError while a sweep runs: its state file describes a live sweep
    recovered = recover_from_state_file(KernelFs("/"), lock);
    if (!recovered) {
        out << "nothing to restore (" << state_file_path().string() << " is absent)\n";
        return 0;
    }
    if (recovered->report.writes_failed)
        throw RuntimeError("could not restore every value saved by the sweep (pid " +
                           std::to_string(recovered->state.pid) +
                           "): " + recovered->report.summary() + "; " + state_file_path().string() +
                           " is kept");
    out << "restored huge page pools saved by an interrupted " << recovered->state.command
        << " (pid " << recovered->state.pid << ", started "
        << printable_text(recovered->state.started_at) << "): " << recovered->report.summary()
        << "\n";
    return 0;
}

}  // namespace

int run_restore(const Args& args) {
    bool json = false;
    std::optional<Recovery> recovered;
    return with_json_result(
        json, [&] { return restore_pools_now(args, json, recovered); },
        [&] { return restore_json(recovered); });
}

void restore_before_command() {
    std::error_code ec;
    if (!std::filesystem::exists(state_file_path(), ec))
        return;
    if (!running_as_root()) {
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
    } catch (const std::exception&) {
        print_diagnostic("warning", current_error().message);
    }
}

}  // namespace hugetune::cli
