// The boot sweep as a state machine over boots. Every command computes a Transition from the
// state and this boot's facts (pure), then carries it out in the one safe order: write the state
// (the next step marked attempted) and the result, load the kexec image, enable or disable the
// unit, then start the image. Nothing acts on the machine before the state says what is under
// way, so a state that cannot be written stops the sweep before any kexec. A step is marked
// attempted before the boot that runs it, and only the boot carrying its exact command line and
// kernel may record it; any other boot finding it in flight ends the sweep where it is, without
// a kexec or a reboot (a person or another boot took over), so no step is ever booted twice and
// no boot can loop.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "tuner/boot_sweep/host.hpp"
#include "tuner/boot_sweep/state.hpp"

namespace hugetune::boot_sweep {

struct Transition {
    State state;
    bool write_state = true;
    std::optional<std::size_t> marked_step;  // marked attempted by this transition
    std::optional<std::string> kexec_cmdline;
    bool reboot = false;
    bool enable_unit = false;
    bool disable_unit = false;
    bool write_result = false;
    std::string message;  // what happened, one line for people
};

// `start`: a fresh state, step 1 marked attempted by this boot, the unit enabled, kexec.
Transition plan_start(const Plan& plan, Finish finish, bool systemd, const BootFacts& boot);
// `continue`, at each boot: nothing to do, record and go on, finish, or abort.
Transition plan_continue(State state, const BootFacts& boot);
// `abort`: ends now on the original command line, else at the next continue. Throws
// RuntimeError when the sweep is not in progress.
Transition plan_abort(State state, const BootFacts& boot);

// Carries `t` out through `host`; `before_start` runs once the state is written and the image
// loaded, just before the image or the reboot starts (or at the end when neither does). A
// failure to write the state changes nothing else; a later failure rewrites the state as
// aborted (the step never retried) and the error passes on. Returns the state as it stands.
State carry_out(Transition t, Host& host, const std::filesystem::path& state_path,
                const std::function<void()>& before_start = {});

// "the result of <state>": the state file's name with "-result" before ".json".
std::filesystem::path result_path(const std::filesystem::path& state_path);

// Whether two command lines are the same parameters in the same order (blanks between tokens
// and a trailing newline aside).
bool same_cmdline(const std::string& a, const std::string& b);

}  // namespace hugetune::boot_sweep
