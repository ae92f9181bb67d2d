// Reads the result of `hugetune boot-sweep` (format "hugetune-boot-sweep",
// docs/boot-sweep-format.md) as a measured boot table: the kernel's own allocation time at each
// total thread count, spread over the nodes the result names, per setting of init_on_alloc and
// HVO the sweep booted.
#include <limits>
#include <nlohmann/json.hpp>

#include "model/alloc_threads.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

constexpr double kMsPerSecond = 1000;

std::optional<bool> first_known(std::initializer_list<JsonField> fields) {
    for (const JsonField& f : fields)
        if (f.present()) {
            const auto value = f.hint<bool>();
            if (!value)
                f.fail("must be true, false or null");
            return value;
        }
    return std::nullopt;
}

// The setting a step booted: what it set, else what its boot said (the log's init_on_alloc, the
// HVO sysctl), else for init_on_alloc the result's one value (results written before the
// steps named their settings).
std::pair<std::optional<bool>, std::optional<bool>> step_setting(const JsonField& step,
                                                                 const JsonField& doc) {
    return {
        first_known({step["init_on_alloc"], step["logged_init_on_alloc"], doc["init_on_alloc"]}),
        first_known({step["hugetlb_free_vmemmap"], step["hvo"]})};
}

BootSettingSeries& series_for(std::vector<BootSettingSeries>& all, std::optional<bool> ioa,
                              std::optional<bool> hvo) {
    for (auto& s : all)
        if (s.init_on_alloc == ioa && s.hvo == hvo)
            return s;
    all.push_back({ioa, hvo, {std::string(kPhaseBoot), 0, {}, {}}});
    return all.back();
}

std::vector<BootSettingSeries> read_steps(const JsonField& doc, int nodes) {
    std::vector<BootSettingSeries> all;
    const JsonField steps = doc["steps"];
    for (std::size_t i = 0; i < steps.array_size(); ++i) {
        const JsonField step = steps[i];
        const auto threads = step["threads"].whole_number({1, std::numeric_limits<int>::max()});
        const auto [ioa, hvo] = step_setting(step, doc);
        BootSettingSeries& series = series_for(all, ioa, hvo);
        if (!step["milliseconds"].present())
            continue;  // a step the sweep did not record
        const auto ms = step["milliseconds"].whole_number({0});
        if (ms == 0)
            step["milliseconds"].fail(
                "0 ms measures nothing (the pool is too small for the log's resolution)");
        series.boots.points.push_back(
            {static_cast<double>(threads) / nodes, static_cast<double>(ms) / kMsPerSecond, 1});
    }
    if (all.empty())
        all.push_back({std::nullopt, std::nullopt, {std::string(kPhaseBoot), 0, {}, {}}});
    return all;
}

std::string setting_text(const BootSettingSeries& s) {
    const auto text = [](const std::optional<bool>& v, const char* on, const char* off) {
        return v ? std::string(*v ? on : off) : std::string("unknown");
    };
    return "init_on_alloc " + text(s.init_on_alloc, "1", "0") + ", HVO " + text(s.hvo, "on", "off");
}

}  // namespace

SweepData parse_boot_sweep_json(const nlohmann::json& document, const InputSource& input) {
    const JsonField doc(document, "give a result written by 'hugetune boot-sweep'", input);
    doc.object();
    if (doc.hint<std::string>("format") != kBootSweepFormat)
        doc["format"].fail(std::string("not '") + kBootSweepFormat + "'");
    if (const auto v = doc["format_version"].whole_number({0}); v != kBootSweepFormatVersion)
        doc["format_version"].fail(std::to_string(v) + " is not supported (this hugetune reads " +
                                   std::to_string(kBootSweepFormatVersion) + ")");
    SweepData data;
    data.source = "boot-sweep";
    data.input = input;
    data.complete = doc.hint<bool>("complete").value_or(false);
    const int nodes = static_cast<int>(doc["nodes"].whole_number({1, kMaxNodes}));
    data.page_size_kb = static_cast<std::uint64_t>(doc["page_size_kb"].whole_number());
    MachineFacts& m = data.machine;
    m.nodes = nodes;
    m.online_cpus = static_cast<int>(doc["kernel"]["online_cpus"].whole_number({nodes, 1 << 20}));
    m.kernel_release = doc["kernel"]["release"].optional_string();
    m.supports_alloc_threads = true;  // the kernel logged the counts it was given
    m.boot_pool_pages = static_cast<std::uint64_t>(doc["pages"].whole_number());
    m.boot_requests.push_back({data.page_size_kb, m.boot_pool_pages, false});
    data.boot_settings = read_steps(doc, nodes);
    m.init_on_alloc = data.boot_settings.front().init_on_alloc;
    data.phases.push_back(data.boot_settings.front().boots);
    if (!data.complete)
        data.notes.push_back("the boot sweep did not record every step: fitting the ones it did");
    if (data.boot_settings.size() > 1)
        data.notes.push_back("the boot sweep booted " + std::to_string(data.boot_settings.size()) +
                             " settings: a fit of its boots takes the first (" +
                             setting_text(data.boot_settings.front()) + ")");
    return data;
}

}  // namespace hugetune::model
