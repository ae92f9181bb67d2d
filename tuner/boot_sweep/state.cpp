#include "tuner/boot_sweep/state.hpp"

#include <limits>
#include <nlohmann/json.hpp>

#include "model/alloc_threads.hpp"
#include "model/documents/json_values.hpp"
#include "model/enum_names.hpp"
#include "model/errors.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/text.hpp"
#include "tuner/kernel/boot_pool.hpp"
#include "tuner/kernel/cmdline.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/json_file.hpp"
#include "tuner/system/root_path.hpp"

namespace hugetune::boot_sweep {

using model::or_null;
namespace {

using model::JsonField;
using nlohmann::json;

constexpr auto kPhaseNames = enum_names<Phase>({{Phase::running, "running"},
                                                {Phase::finishing, "finishing"},
                                                {Phase::done, "done"},
                                                {Phase::aborted, "aborted"}});
constexpr auto kFinishNames =
    enum_names<Finish>({{Finish::kexec, "kexec"}, {Finish::reboot, "reboot"}});

constexpr const char* kStateFix =
    "the state file is damaged; remove it (the machine's boot configuration was never changed)";

json bool_json(const std::optional<bool>& v) {
    return v ? json(*v) : json(nullptr);
}

// What a step sets, beside its command line for readers; a saved step's settings are derived
// again from the plan, never read back.
void add_settings(json& out, const BootSettings& s) {
    out["init_on_alloc"] = bool_json(s.init_on_alloc);
    out["hugetlb_free_vmemmap"] = bool_json(s.hugetlb_free_vmemmap);
}

// The one value every step sets, for readers of format 1 before the value lists: null when the
// plan keeps the command line's or sets several.
std::optional<bool> single_value(const std::vector<bool>& values) {
    return values.size() == 1 ? std::optional(values.front()) : std::nullopt;
}

json to_json(const Plan& p) {
    json steps = json::array();
    for (const Step& s : p.steps) {
        json step = {{"threads", s.threads}, {"repetition", s.repetition}, {"cmdline", s.cmdline}};
        add_settings(step, s.settings);
        steps.push_back(step);
    }
    return {{"kernel_release", p.kernel_release},
            {"kernel_image", p.kernel_image},
            {"initrd", or_null(p.initrd)},
            {"original_cmdline", p.original_cmdline},
            {"page_size_kb", p.page_size_kb},
            {"pages", p.pages},
            {"nodes", p.nodes},
            {"online_cpus", p.online_cpus},
            {"init_on_alloc", bool_json(single_value(p.init_on_alloc))},
            {"init_on_alloc_values", p.init_on_alloc},
            {"hugetlb_free_vmemmap_values", p.hugetlb_free_vmemmap},
            {"threads", p.threads},
            {"repetitions", p.repetitions},
            {"steps", steps},
            {"estimated_seconds", p.estimated_seconds}};
}

json to_json(const StepState& s) {
    json out = {{"threads", s.step.threads},
                {"repetition", s.step.repetition},
                {"cmdline", s.step.cmdline},
                {"attempted", nullptr},
                {"recorded", nullptr}};
    add_settings(out, s.step.settings);
    if (s.attempted)
        out["attempted"] = {{"at", s.attempted->at}, {"boot_id", s.attempted->boot_id}};
    if (const auto& r = s.recorded)
        out["recorded"] = {{"at", r->at},
                           {"milliseconds", r->milliseconds},
                           {"logged_threads", r->logged_threads},
                           {"boot_id", r->boot_id},
                           {"kernel_release", r->kernel_release},
                           {"cmdline", r->cmdline},
                           {"init_on_alloc", bool_json(r->init_on_alloc)},
                           {"hvo", bool_json(r->hvo)}};
    return out;
}

int whole_int(const JsonField& f, std::int64_t min = 1,
              std::int64_t max = std::numeric_limits<int>::max()) {
    return static_cast<int>(f.whole_number({min, max}));
}

// A pool the boot sweep would ever measure: 1 PiB in KiB, far above any machine's memory.
constexpr std::uint64_t kMaxPoolKb = std::uint64_t{1} << 40;

std::uint64_t whole_u64(const JsonField& f, std::int64_t min = 1) {
    return static_cast<std::uint64_t>(f.whole_number({min}));
}

Step read_step(const JsonField& f) {
    return {whole_int(f["threads"]), whole_int(f["repetition"]), f["cmdline"].string(), {}};
}

// What the sweep kexecs comes from the state file, so a saved plan must be one make_plan could
// have made: every bound it checks, and steps that are exactly those its fields derive. A state
// edited by hand or forged cannot choose a thread count, a pool or a command line.
void check_saved_plan(const JsonField& f, const Plan& p) {
    if (p.page_size_kb < 4 || (p.page_size_kb & (p.page_size_kb - 1)) != 0 ||
        p.page_size_kb > model::kLargestKnownBuddyBlockKb)
        f["page_size_kb"].fail("must be a power of two of 4 to " +
                               std::to_string(model::kLargestKnownBuddyBlockKb) +
                               " KiB (a page size the boot threads allocate)");
    if (p.pages > kMaxPoolKb / p.page_size_kb)
        f["pages"].fail("is a pool above 1 PiB");
    if (p.nodes > p.online_cpus)
        f["nodes"].fail("is above online_cpus (" + std::to_string(p.online_cpus) + ")");
    if (p.threads.empty())
        f["threads"].fail("must list at least one thread count");
    for (std::size_t i = 0; i < p.threads.size(); ++i) {
        if (p.threads[i] > p.online_cpus)
            f["threads"][i].fail(std::to_string(p.threads[i]) + " is above online_cpus (" +
                                 std::to_string(p.online_cpus) + ")");
        if (i > 0 && p.threads[i] <= p.threads[i - 1])
            f["threads"][i].fail("must be above the count before it (ascending, no repeats)");
    }
    for (const auto& [values, name] :
         {std::pair{&p.init_on_alloc, "init_on_alloc_values"},
          std::pair{&p.hugetlb_free_vmemmap, "hugetlb_free_vmemmap_values"}})
        if (values->size() > 2 || (values->size() == 2 && (*values)[0] == (*values)[1]))
            f[name].fail("must list each of true and false at most once");
    // The sweep kexecs these: a path that climbs with ".." or is relative could name any file.
    if (!is_plain_absolute_path(p.kernel_image))
        f["kernel_image"].fail("must be an absolute path without '.' or '..' parts");
    if (p.initrd && !is_plain_absolute_path(*p.initrd))
        f["initrd"].fail("must be an absolute path without '.' or '..' parts, or null");
    if (p.original_cmdline != cmdline_text(parse_kernel_cmdline(p.original_cmdline)))
        f["original_cmdline"].fail("is not a command line as the plan writes it");
    const std::vector<Step> derived = plan_steps(p);
    if (p.steps.size() != derived.size())
        f["steps"].fail("has " + std::to_string(p.steps.size()) + " steps; the thread counts and " +
                        "repetitions make " + std::to_string(derived.size()));
    for (std::size_t i = 0; i < derived.size(); ++i) {
        const Step& saved = p.steps[i];
        if (saved.threads != derived[i].threads || saved.repetition != derived[i].repetition ||
            saved.cmdline != derived[i].cmdline)
            f["steps"][i].fail("is not the step the plan derives (" +
                               std::to_string(derived[i].threads) + " threads, repetition " +
                               std::to_string(derived[i].repetition) + ": " + derived[i].cmdline +
                               ")");
    }
}

std::vector<bool> boolean_list(const JsonField& f) {
    std::vector<bool> values;
    for (std::size_t i = 0; i < f.array_size(); ++i)
        values.push_back(f[i].boolean());
    return values;
}

// init_on_alloc_values, or in a state written before it, the one value of init_on_alloc; a
// plan with both must have them agree.
std::vector<bool> init_on_alloc_values(const JsonField& f) {
    const std::optional<bool> single = f["init_on_alloc"].optional_boolean();
    if (!f["init_on_alloc_values"].present())
        return single ? std::vector<bool>{*single} : std::vector<bool>{};
    std::vector<bool> values = boolean_list(f["init_on_alloc_values"]);
    if (single != single_value(values))
        f["init_on_alloc"].fail("disagrees with init_on_alloc_values");
    return values;
}

Plan read_plan(const JsonField& f) {
    f.object();
    Plan p;
    p.kernel_release = f["kernel_release"].string();
    p.kernel_image = f["kernel_image"].string();
    p.initrd = f["initrd"].optional_string();
    p.original_cmdline = f["original_cmdline"].string();
    p.page_size_kb = whole_u64(f["page_size_kb"]);
    p.pages = whole_u64(f["pages"]);
    p.nodes = whole_int(f["nodes"], 1, kMaxNodes);
    p.online_cpus = whole_int(f["online_cpus"], 1, static_cast<std::int64_t>(kMaxAllocThreads));
    p.init_on_alloc = init_on_alloc_values(f);
    if (f["hugetlb_free_vmemmap_values"].present())
        p.hugetlb_free_vmemmap = boolean_list(f["hugetlb_free_vmemmap_values"]);
    for (std::size_t i = 0; i < f["threads"].array_size(); ++i)
        p.threads.push_back(
            whole_int(f["threads"][i], 1, static_cast<std::int64_t>(kMaxAllocThreads)));
    p.repetitions = whole_int(f["repetitions"], 1, kMaxRepetitions);
    for (std::size_t i = 0; i < f["steps"].array_size(); ++i)
        p.steps.push_back(read_step(f["steps"][i]));
    p.estimated_seconds = f["estimated_seconds"].hint<double>().value_or(0);
    check_saved_plan(f, p);
    const std::vector<Step> derived = plan_steps(p);
    for (std::size_t i = 0; i < p.steps.size(); ++i)
        p.steps[i].settings = derived[i].settings;
    return p;
}

StepState read_step_state(const JsonField& f) {
    f.object();
    StepState s{read_step(f), {}, {}};
    if (const JsonField a = f["attempted"]; a.present())
        s.attempted = Attempt{a["at"].string(), a["boot_id"].string()};
    if (const JsonField r = f["recorded"]; r.present())
        s.recorded = Record{r["at"].string(),
                            whole_u64(r["milliseconds"], 0),
                            whole_u64(r["logged_threads"]),
                            r["boot_id"].string(),
                            r["kernel_release"].string(),
                            r["cmdline"].string(),
                            r["init_on_alloc"].optional_boolean(),
                            r["hvo"].optional_boolean()};
    return s;
}

}  // namespace

std::string to_string(Phase phase) {
    return std::string(name_of(kPhaseNames, phase));
}

std::string to_string(Finish finish) {
    return std::string(name_of(kFinishNames, finish));
}

StepState* State::in_flight() {
    for (auto& s : steps)
        if (s.attempted && !s.recorded)
            return &s;
    return nullptr;
}

json to_json(const State& s) {
    json steps = json::array();
    for (const auto& step : s.steps)
        steps.push_back(to_json(step));
    return {{"format", kStateFormat},
            {"format_version", kStateFormatVersion},
            {"phase", to_string(s.phase)},
            {"abort_requested", s.abort_requested},
            {"abort_reason", s.abort_reason},
            {"finish", to_string(s.finish)},
            {"systemd", s.systemd},
            {"started_at", s.started_at},
            {"ended_at", or_null(s.ended_at)},
            {"plan", to_json(s.plan)},
            {"steps", steps}};
}

State state_from_json(const json& document, const model::InputSource& input) {
    const JsonField doc(document, kStateFix, input);
    doc.object();
    if (doc["format"].string() != kStateFormat)
        doc["format"].fail(std::string("not '") + kStateFormat + "'");
    if (const auto v = doc["format_version"].whole_number({0}); v != kStateFormatVersion)
        doc["format_version"].fail(std::to_string(v) + " is not supported (this hugetune reads " +
                                   std::to_string(kStateFormatVersion) + ")");
    State s;
    s.phase = model::named_value(doc["phase"], kPhaseNames);
    s.abort_requested = doc["abort_requested"].boolean();
    s.abort_reason = doc["abort_reason"].string();
    s.finish = model::named_value(doc["finish"], kFinishNames);
    s.systemd = doc["systemd"].boolean();
    s.started_at = doc["started_at"].string();
    s.ended_at = doc["ended_at"].optional_string();
    s.plan = read_plan(doc["plan"]);
    for (std::size_t i = 0; i < doc["steps"].array_size(); ++i)
        s.steps.push_back(read_step_state(doc["steps"][i]));
    if (s.steps.size() != s.plan.steps.size())
        doc["steps"].fail("has " + std::to_string(s.steps.size()) + " steps, the plan " +
                          std::to_string(s.plan.steps.size()));
    for (std::size_t i = 0; i < s.steps.size(); ++i) {
        const Step& step = s.steps[i].step;
        const Step& planned = s.plan.steps[i];
        if (step.threads != planned.threads || step.repetition != planned.repetition ||
            step.cmdline != planned.cmdline)
            doc["steps"][i].fail("is not the plan's step " + std::to_string(i + 1) + " (" +
                                 std::to_string(planned.threads) + " threads: " + planned.cmdline +
                                 ")");
        s.steps[i].step.settings = planned.settings;
    }
    return s;
}

std::string state_text(const State& state) {
    return to_json(state).dump(2) + "\n";
}

bool is_planned_cmdline(const State& state, const std::string& cmdline) {
    if (cmdline == state.plan.original_cmdline)
        return true;
    for (const Step& step : state.plan.steps)
        if (cmdline == step.cmdline)
            return true;
    return false;
}

std::optional<State> read_state(const RootDir& root, std::string_view target_path) {
    const auto document = read_json_file(root, target_path, {false, kStateFix});
    if (!document)
        return std::nullopt;
    return state_from_json(*document, {root.shown(target_path)});
}

}  // namespace hugetune::boot_sweep
