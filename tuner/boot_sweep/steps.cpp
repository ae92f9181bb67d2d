#include "tuner/boot_sweep/steps.hpp"

#include <nlohmann/json.hpp>

#include "model/errors.hpp"
#include "tuner/boot_sweep/result.hpp"
#include "tuner/kernel/boot_log.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot_sweep {
namespace {

std::string step_name(const State& s, std::size_t index) {
    const Step& step = s.steps[index].step;
    const bool several = plan_settings(s.plan).size() > 1;
    return "step " + std::to_string(index + 1) + " of " + std::to_string(s.steps.size()) + " (" +
           std::to_string(step.threads) + " threads, " +
           (several ? settings_text(step.settings) + ", " : std::string()) + "repetition " +
           std::to_string(step.repetition) + ")";
}

std::size_t index_of(const State& s, const StepState* step) {
    return static_cast<std::size_t>(step - s.steps.data());
}

// Back to the original command line: a kexec, or a normal reboot when asked; nothing when this
// boot already carries it.
void return_to_original(Transition& t, const BootFacts& boot) {
    if (same_cmdline(boot.cmdline, t.state.plan.original_cmdline))
        return;
    if (t.state.finish == Finish::reboot)
        t.reboot = true;
    else
        t.kexec_cmdline = t.state.plan.original_cmdline;
}

// How a sweep leaves the boot it ends in: back to the original command line (a boot the sweep
// itself made), or as it is (a boot the sweep did not make: a person or the firmware chose it).
enum class Leave { to_original, as_it_is };

Transition end_sweep(State state, const BootFacts& boot, Phase phase, const std::string& reason,
                     Leave leave = Leave::to_original) {
    Transition t;
    t.state = std::move(state);
    t.state.phase = phase;
    t.state.abort_reason = phase == Phase::aborted ? reason : "";
    t.state.ended_at = boot.now;
    t.disable_unit = t.state.systemd;
    t.write_result = true;
    const bool original = same_cmdline(boot.cmdline, t.state.plan.original_cmdline);
    if (leave == Leave::to_original)
        return_to_original(t, boot);
    t.message =
        (phase == Phase::aborted ? "boot sweep aborted: " + reason
                                 : std::string("boot sweep finished: every step recorded")) +
        (t.kexec_cmdline ? "; returning to the original command line by kexec"
         : t.reboot      ? "; rebooting normally"
         : original      ? "; this boot is on the original command line"
                         : "; this boot is not one the sweep made, so it is left as it is (no "
                           "kexec, no reboot); reboot normally to return to the original "
                           "command line");
    return t;
}

Transition abort_sweep(State state, const BootFacts& boot, const std::string& reason) {
    return end_sweep(std::move(state), boot, Phase::aborted, reason);
}

// A boot that is not the step's: whoever chose it took over, and the sweep stops in it.
Transition abort_in_place(State state, const BootFacts& boot, const std::string& reason) {
    return end_sweep(std::move(state), boot, Phase::aborted, reason, Leave::as_it_is);
}

Transition mark_and_go(State state, const BootFacts& boot, std::size_t index) {
    Transition t;
    t.state = std::move(state);
    t.state.steps[index].attempted = Attempt{boot.now, boot.boot_id};
    t.marked_step = index;
    t.kexec_cmdline = t.state.steps[index].step.cmdline;
    t.message = "kexec into " + step_name(t.state, index);
    return t;
}

// Why this boot cannot record the step in flight; nothing when it can.
std::optional<std::string> mismatch(const State& s, const StepState& step, std::size_t index,
                                    const BootFacts& boot) {
    const std::string name = step_name(s, index);
    if (boot.boot_id == step.attempted->boot_id)
        return "the kexec into " + name +
               " did not happen: this is still the boot that left for it";
    if (same_cmdline(boot.cmdline, s.plan.original_cmdline))
        return name + " was attempted at " + step.attempted->at +
               " but this boot carries the original command line: the step's boot never got "
               "here (a hang, a crash, a power cut or a failed kexec); it is not tried again";
    if (!same_cmdline(boot.cmdline, step.step.cmdline))
        return "this boot's command line is not " + name + "'s: '" + boot.cmdline + "'";
    if (boot.kernel_release != s.plan.kernel_release)
        return "this boot runs kernel " + boot.kernel_release + ", the sweep measures " +
               s.plan.kernel_release + " (" + name + ")";
    return std::nullopt;
}

std::string on_off(bool value) {
    return value ? "on" : "off";
}

// Why this boot did not run with the step's settings, as the boot itself says (its log's
// "mem auto-init" line, its HVO sysctl); nothing when it did or does not say otherwise.
std::optional<std::string> settings_mismatch(const BootSettings& set,
                                             std::optional<bool> logged_init_on_alloc,
                                             std::optional<bool> hvo) {
    if (set.init_on_alloc && logged_init_on_alloc && *logged_init_on_alloc != *set.init_on_alloc)
        return "the kernel logged init_on_alloc " + on_off(*logged_init_on_alloc) +
               " ('mem auto-init: ... heap alloc:" + on_off(*logged_init_on_alloc) +
               "'), the step booted init_on_alloc=" + (*set.init_on_alloc ? "1" : "0");
    if (set.hugetlb_free_vmemmap && !hvo)
        return "this boot has no /proc/sys/vm/hugetlb_optimize_vmemmap, so whether "
               "hugetlb_free_vmemmap=" +
               on_off(*set.hugetlb_free_vmemmap) + " took effect cannot be told";
    if (set.hugetlb_free_vmemmap && *hvo != *set.hugetlb_free_vmemmap)
        return "the kernel runs with HVO " + on_off(*hvo) +
               " (/proc/sys/vm/hugetlb_optimize_vmemmap), the step booted "
               "hugetlb_free_vmemmap=" +
               on_off(*set.hugetlb_free_vmemmap);
    return std::nullopt;
}

Transition record_step(State s, const BootFacts& boot) {
    StepState* step = s.in_flight();
    if (step == nullptr)
        return abort_in_place(std::move(s), boot, "the state has no step in flight");
    const std::size_t index = index_of(s, step);
    if (auto why = mismatch(s, *step, index, boot))
        return abort_in_place(std::move(s), boot, *why);
    const auto line =
        allocation_line_for_pool(boot.log, s.plan.page_size_kb, boot.largest_buddy_block_kb);
    // Each reason is made before the state moves into abort_sweep: the order in which a call's
    // arguments are evaluated is unspecified, and the arm64 build moves the state first.
    if (!line) {
        const std::string reason =
            "this boot's kernel log has no 'HugeTLB: allocation took' line for " +
            step_name(s, index);
        return abort_sweep(std::move(s), boot, reason);
    }
    if (line->threads != static_cast<std::uint64_t>(step->step.threads)) {
        const std::string reason = "the kernel used " + std::to_string(line->threads) +
                                   " threads, not " + std::to_string(step->step.threads) + " (" +
                                   step_name(s, index) + ")";
        return abort_sweep(std::move(s), boot, reason);
    }
    // docs/kernel-facts.md "init_on_alloc and boot zeroing", "HVO".
    const auto logged_init_on_alloc = read_boot_log_context(boot.log).init_on_alloc;
    if (auto why = settings_mismatch(step->step.settings, logged_init_on_alloc, boot.hvo)) {
        const std::string reason = *why + " (" + step_name(s, index) + ")";
        return abort_sweep(std::move(s), boot, reason);
    }
    step->recorded =
        Record{boot.now,     line->milliseconds,   line->threads, boot.boot_id, boot.kernel_release,
               boot.cmdline, logged_init_on_alloc, boot.hvo};
    if (s.abort_requested)
        return abort_sweep(std::move(s), boot, "abort requested");
    for (std::size_t next = index + 1; next < s.steps.size(); ++next)
        if (!s.steps[next].attempted)
            return mark_and_go(std::move(s), boot, next);
    return end_sweep(std::move(s), boot, Phase::finishing, "");
}

void write_outputs(const Transition& t, Host& host, const std::filesystem::path& state_path) {
    host.write_file(state_path, state_text(t.state));
    if (t.write_result)
        host.write_file(result_path(state_path), to_json(summarize(t.state)).dump(2) + "\n");
}

// A failure once the state may say a step is attempted ends the sweep there: the step is never
// tried again, and the unit will not run at the next boot.
void end_on_failure(Transition& t, Host& host, const std::filesystem::path& state_path,
                    const std::string& what) {
    if (t.state.phase == Phase::running) {
        t.state.phase = Phase::aborted;
        t.state.abort_reason = what;
    }
    t.write_result = true;
    write_outputs(t, host, state_path);
    if (t.state.systemd) {
        try {
            host.disable_unit();
        } catch (const Error&) {  // the original error is the one to report
        }
    }
}

// The last check before a load: what is kexec'd is a command line the plan made.
void require_planned_cmdline(const State& s, const std::string& cmdline) {
    if (!is_planned_cmdline(s, cmdline))
        throw RuntimeError("refusing to kexec with a command line the plan does not make: '" +
                           cmdline + "'");
}

}  // namespace

bool same_cmdline(const std::string& a, const std::string& b) {
    return cmdline_text(parse_kernel_cmdline(a)) == cmdline_text(parse_kernel_cmdline(b));
}

std::filesystem::path result_path(const std::filesystem::path& state_path) {
    std::filesystem::path p = state_path;
    p.replace_filename(state_path.stem().string() + "-result.json");
    return p;
}

Transition plan_start(const Plan& plan, Finish finish, bool systemd, const BootFacts& boot) {
    State s;
    s.plan = plan;
    s.finish = finish;
    s.systemd = systemd;
    s.started_at = boot.now;
    for (const Step& step : plan.steps)
        s.steps.push_back({step, {}, {}});
    Transition t = mark_and_go(std::move(s), boot, 0);
    t.enable_unit = systemd;
    return t;
}

Transition plan_continue(State state, const BootFacts& boot) {
    if (!state.in_progress()) {
        Transition t;
        t.state = std::move(state);
        t.write_state = false;
        t.message = "nothing to do: the boot sweep is " + to_string(t.state.phase);
        return t;
    }
    if (state.phase == Phase::finishing) {
        Transition t;
        t.state = std::move(state);
        t.state.phase = Phase::done;
        t.message = same_cmdline(boot.cmdline, t.state.plan.original_cmdline)
                        ? "boot sweep done: back on the original command line"
                        : "boot sweep done, but this boot's command line is not the original "
                          "one: '" +
                              boot.cmdline + "'";
        return t;
    }
    return record_step(std::move(state), boot);
}

Transition plan_abort(State state, const BootFacts& boot) {
    if (!state.in_progress())
        throw RuntimeError("nothing to abort: the boot sweep is already " + to_string(state.phase));
    if (state.phase == Phase::finishing || same_cmdline(boot.cmdline, state.plan.original_cmdline))
        return abort_sweep(std::move(state), boot, "abort requested");
    Transition t;
    t.state = std::move(state);
    t.state.abort_requested = true;
    t.message =
        "abort requested: the next continue records its boot and returns to the "
        "original command line";
    return t;
}

State carry_out(Transition t, Host& host, const std::filesystem::path& state_path,
                const std::function<void()>& before_start) {
    if (!t.write_state) {
        if (before_start)
            before_start();
        return t.state;
    }
    // The state first: when it cannot be written nothing has happened yet.
    write_outputs(t, host, state_path);
    if (t.kexec_cmdline) {
        try {
            require_planned_cmdline(t.state, *t.kexec_cmdline);
            host.load_kexec({t.state.plan.kernel_image, t.state.plan.initrd}, *t.kexec_cmdline);
        } catch (const Error& e) {
            if (t.marked_step)
                t.state.steps[*t.marked_step].attempted.reset();
            end_on_failure(t, host, state_path, std::string("kexec could not load: ") + e.what());
            throw;
        }
    }
    try {
        if (t.enable_unit)
            host.enable_unit();
        if (t.disable_unit)
            host.disable_unit();
        if (before_start)
            before_start();
        if (t.kexec_cmdline)
            host.exec_kexec();
        else if (t.reboot)
            host.reboot();
    } catch (const Error& e) {
        end_on_failure(t, host, state_path, e.what());
        throw;
    }
    return t.state;
}

}  // namespace hugetune::boot_sweep
