// The boot sweep's state file: what makes every boot of the sweep know where it stands and what
// makes a loop impossible. Each step is marked attempted, with the boot that left for it, before
// its kexec; a step is recorded only by the boot that carries its exact command line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/input/input_error.hpp"
#include "tuner/boot_sweep/plan.hpp"
#include "tuner/system/root_dir.hpp"

namespace hugetune::boot_sweep {

inline constexpr const char* kStateFormat = "hugetune-boot-sweep-state";
inline constexpr int kStateFormatVersion = 1;
inline const std::filesystem::path kDefaultStatePath = "/var/lib/hugetune/boot-sweep.json";
// One sweep per machine, whatever its state file: `start` writes the path of its state here (as
// the machine sees it) and refuses while the state named here is in progress.
inline const std::filesystem::path kActiveSweepPath = "/var/lib/hugetune/boot-sweep-active";

// running: steps left or in flight; finishing: every step recorded, the machine on its way back
// to the original command line; done: back; aborted: stopped, with the reason.
enum class Phase { running, finishing, done, aborted };
std::string to_string(Phase phase);

// How the sweep leaves the last step's boot: a kexec into the original command line, or a
// normal reboot through the firmware and the boot loader.
enum class Finish { kexec, reboot };
std::string to_string(Finish finish);

struct Attempt {
    std::string at;       // UTC, ISO 8601
    std::string boot_id;  // of the boot that left for the step
};

struct Record {
    std::string at;
    std::uint64_t milliseconds = 0;
    std::uint64_t logged_threads = 0;  // what the kernel's line says it used
    std::string boot_id;
    std::string kernel_release;
    std::string cmdline;  // the command line the boot carried
    // What the boot itself says it ran with: its log's "mem auto-init: ... heap alloc:on|off"
    // and its /proc/sys/vm/hugetlb_optimize_vmemmap; nothing where it does not say.
    std::optional<bool> init_on_alloc;
    std::optional<bool> hvo;
};

struct StepState {
    Step step;
    std::optional<Attempt> attempted;
    std::optional<Record> recorded;
};

struct State {
    Plan plan;
    Finish finish = Finish::kexec;
    bool systemd = true;  // the continue unit is installed and enabled
    std::string started_at;
    std::vector<StepState> steps;
    Phase phase = Phase::running;
    bool abort_requested = false;
    std::string abort_reason;  // set with Phase::aborted
    std::optional<std::string> ended_at;

    bool in_progress() const { return phase == Phase::running || phase == Phase::finishing; }
    // The step marked attempted and not recorded: the one this boot should be.
    StepState* in_flight();
};

nlohmann::json to_json(const State& state);
// Throws model::InputError about `input` naming the JSON path of the problem. A saved plan must
// be one make_plan could make (bounds, and each step derived from the plan's fields).
State state_from_json(const nlohmann::json& document, const model::InputSource& input = {});

// The file's text, as written.
std::string state_text(const State& state);
// Whether `cmdline` is one the plan boots: a step's or the original command line.
bool is_planned_cmdline(const State& state, const std::string& cmdline);

// The state at `target_path` in the tree `root` (opened inside it, RootDir); nothing when there
// is none. Read with one-line errors naming the file (UsageError) and the field
// (model::InputError). The state is written as state_text through the command's Effects
// (tuner/boot_sweep/host.hpp).
std::optional<State> read_state(const RootDir& root, std::string_view target_path);

}  // namespace hugetune::boot_sweep
