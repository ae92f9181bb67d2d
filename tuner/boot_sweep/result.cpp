#include "tuner/boot_sweep/result.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/alloc_threads.hpp"
#include "model/recommend.hpp"
#include "model/statistics.hpp"
#include "model/text.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot_sweep {
namespace {

using nlohmann::json;

ThreadsResult threads_result(int threads, std::vector<double> ms) {
    ThreadsResult r;
    r.threads = threads;
    r.milliseconds = std::move(ms);
    r.median_ms = model::median(r.milliseconds);
    const auto [low, high] = std::minmax_element(r.milliseconds.begin(), r.milliseconds.end());
    r.spread = r.median_ms > 0 ? (*high - *low) / r.median_ms : 0;
    return r;
}

SettingResult setting_result(const State& state, const BootSettings& set, double tolerance) {
    SettingResult r;
    r.settings = set;
    std::map<int, std::vector<double>> by_threads;
    for (const StepState& s : state.steps)
        if (s.recorded && s.step.settings == set)
            by_threads[s.step.threads].push_back(static_cast<double>(s.recorded->milliseconds));
    for (auto& [threads, ms] : by_threads)
        r.by_threads.push_back(threads_result(threads, std::move(ms)));
    if (!r.by_threads.empty()) {
        std::vector<double> medians;
        for (const auto& t : r.by_threads)
            medians.push_back(t.median_ms);
        r.best_threads = r.by_threads[model::fewest_within_tolerance(medians, tolerance)].threads;
    }
    return r;
}

json setting_json(const std::optional<bool>& v) {
    return v ? json(*v) : json(nullptr);
}

json threads_json(const std::vector<ThreadsResult>& by_threads) {
    json threads = json::array();
    for (const auto& t : by_threads)
        threads.push_back({{"threads", t.threads},
                           {"milliseconds", t.milliseconds},
                           {"median_ms", t.median_ms},
                           {"spread", t.spread}});
    return threads;
}

json best_json(const std::optional<int>& best) {
    if (!best)
        return nullptr;
    return {{"threads", *best},
            {"cmdline", alloc_threads_setting(static_cast<std::uint64_t>(*best))}};
}

std::string right(const std::string& text, std::size_t width) {
    return std::string(width - std::min(width, text.size()), ' ') + text;
}

void threads_table(std::ostringstream& s, const SettingResult& r) {
    s << "threads  boots  median       spread\n";
    for (const auto& t : r.by_threads)
        s << right(std::to_string(t.threads), 7) << "  "
          << right(std::to_string(t.milliseconds.size()), 5) << "  "
          << seconds_text(t.median_ms / 1000) << "  " << percent_text(t.spread, 1)
          << (r.best_threads == t.threads ? "  <- best" : "") << "\n";
}

}  // namespace

Result summarize(const State& state) {
    return summarize(state, model::RecommendOptions{}.tolerance);
}

Result summarize(const State& state, double tolerance) {
    Result r;
    r.state = state;
    r.complete = true;
    r.tolerance = tolerance;
    for (const StepState& s : state.steps)
        r.complete = r.complete && s.recorded.has_value();
    for (const BootSettings& set : plan_settings(state.plan))
        r.by_setting.push_back(setting_result(state, set, tolerance));
    r.by_threads = r.by_setting.front().by_threads;
    r.best_threads = r.by_setting.front().best_threads;
    return r;
}

json to_json(const Result& r) {
    const Plan& p = r.state.plan;
    json steps = json::array();
    for (const StepState& s : r.state.steps) {
        json step = {{"threads", s.step.threads},
                     {"repetition", s.step.repetition},
                     {"init_on_alloc", setting_json(s.step.settings.init_on_alloc)},
                     {"hugetlb_free_vmemmap", setting_json(s.step.settings.hugetlb_free_vmemmap)},
                     {"milliseconds", nullptr}};
        if (s.recorded) {
            step["milliseconds"] = s.recorded->milliseconds;
            step["logged_threads"] = s.recorded->logged_threads;
            step["boot_id"] = s.recorded->boot_id;
            step["kernel_release"] = s.recorded->kernel_release;
            step["logged_init_on_alloc"] = setting_json(s.recorded->init_on_alloc);
            step["hvo"] = setting_json(s.recorded->hvo);
        }
        steps.push_back(step);
    }
    json by_setting = json::array();
    for (const auto& set : r.by_setting)
        by_setting.push_back(
            {{"init_on_alloc", setting_json(set.settings.init_on_alloc)},
             {"hugetlb_free_vmemmap", setting_json(set.settings.hugetlb_free_vmemmap)},
             {"by_threads", threads_json(set.by_threads)},
             {"best", best_json(set.best_threads)}});
    const std::vector<bool>& ioa = p.init_on_alloc;
    json out = {
        {"format", kResultFormat},
        {"format_version", kResultFormatVersion},
        {"phase", to_string(r.state.phase)},
        {"complete", r.complete},
        {"abort_reason", r.state.abort_reason},
        {"kernel", {{"release", p.kernel_release}, {"online_cpus", p.online_cpus}}},
        {"nodes", p.nodes},
        {"page_size_kb", p.page_size_kb},
        {"pages", p.pages},
        {"init_on_alloc", ioa.size() == 1 ? json(static_cast<bool>(ioa.front())) : json(nullptr)},
        {"init_on_alloc_values", p.init_on_alloc},
        {"hugetlb_free_vmemmap_values", p.hugetlb_free_vmemmap},
        {"tolerance", r.tolerance},
        {"steps", steps},
        {"by_threads", threads_json(r.by_threads)},
        {"best", best_json(r.best_threads)},
        {"by_setting", by_setting},
        {"summary", format_result(r)}};
    return out;
}

std::string format_result(const Result& r) {
    const Plan& p = r.state.plan;
    std::ostringstream s;
    s << "boot sweep " << to_string(r.state.phase) << ": kernel " << p.kernel_release << ", "
      << p.pages << " pages of " << page_size_text(p.page_size_kb) << ", " << p.nodes
      << (p.nodes == 1 ? " node" : " nodes") << "\n";
    if (!r.state.abort_reason.empty())
        s << "stopped: " << r.state.abort_reason << "\n";
    const bool several = r.by_setting.size() > 1;
    for (const auto& set : r.by_setting) {
        if (several)
            s << settings_text(set.settings) << ":\n";
        threads_table(s, set);
        if (set.best_threads)
            s << "best: the fewest threads within " << percent_text(r.tolerance)
              << " of the fastest median" << (r.complete ? "" : " (of the steps recorded)") << ": "
              << alloc_threads_setting(static_cast<std::uint64_t>(*set.best_threads)) << "\n";
        else
            s << "no step was recorded\n";
    }
    return s.str();
}

std::string format_status(const State& state) {
    std::ostringstream s;
    s << "boot sweep " << to_string(state.phase) << " since " << state.started_at << ", "
      << state.steps.size() << " steps, finishing by " << to_string(state.finish) << "\n";
    if (state.abort_requested && state.in_progress())
        s << "abort requested: the next continue returns to the original command line\n";
    const bool several = plan_settings(state.plan).size() > 1;
    for (std::size_t i = 0; i < state.steps.size(); ++i) {
        const StepState& step = state.steps[i];
        s << "step " << i + 1 << ": " << step.step.threads << " threads, "
          << (several ? settings_text(step.step.settings) + ", " : std::string()) << "repetition "
          << step.step.repetition << ": ";
        if (step.recorded)
            s << step.recorded->milliseconds << " ms, boot " << step.recorded->boot_id;
        else if (step.attempted)
            s << "attempted at " << step.attempted->at << ", not recorded";
        else
            s << "not attempted";
        s << "\n";
    }
    if (!state.in_progress())
        s << format_result(summarize(state));
    return s.str();
}

}  // namespace hugetune::boot_sweep
