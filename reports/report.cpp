#include "reports/report.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iterator>
#include <set>

#include "model/alloc_threads.hpp"
#include "model/documents/report.hpp"
#include "model/input/json_fields.hpp"
#include "model/text.hpp"
#include "reports/json_access.hpp"

namespace hugetune {
namespace {

using nlohmann::json;

std::string threads_list(const std::set<int>& ns) {
    std::string out;
    for (int n : ns)
        out += (out.empty() ? "" : ", ") + std::to_string(n);
    return out;
}

// The memory per node is the smallest node's MemTotal as memory is installed
// (model::nominal_memory_gib): one machine keeps one key whatever its pools hold. A probe
// without MemTotal (a tree gathered before it was recorded) falls back to hwloc's local memory,
// which excludes the huge pages held, rounded to the GiB.
json init_on_alloc_of(const json& probe) {
    const json& value = at_or_null(at_or_null(probe, "kernel"), "init_on_alloc");
    return value.is_boolean() ? value : json(nullptr);
}

json sku_of(const json& probe, const json& sweep) {
    const auto& nodes = probe["topology"]["nodes"];
    int memory_nodes = 0;
    std::size_t max_threads = 0;
    std::uint64_t min_memory = 0, min_total = 0;
    bool every_total = true;
    for (const auto& n : nodes) {
        auto bytes = n.value("memory_bytes", std::uint64_t{0});
        if (bytes == 0)
            continue;
        ++memory_nodes;
        max_threads = std::max(max_threads, n["cpus"].size());
        min_memory = min_memory == 0 ? bytes : std::min(min_memory, bytes);
        const auto total = n.value("memory_total_bytes", std::uint64_t{0});
        every_total = every_total && total > 0;
        min_total = min_total == 0 ? total : std::min(min_total, total);
    }
    const double gib = static_cast<double>(min_memory) / (1024.0 * 1024 * 1024);
    const auto memory_gib = every_total && min_total > 0
                                ? static_cast<std::int64_t>(model::nominal_memory_gib(min_total))
                                : static_cast<std::int64_t>(std::llround(gib));
    return {{"microarch", probe["cpu"].value("microarch", "unknown")},
            {"nodes", memory_nodes},
            {"hardware_threads_per_node", max_threads},
            {"memory_per_node_gib", memory_gib},
            {"page_size_kb", sweep["parameters"].value("page_size_kb", 2048)},
            {"init_on_alloc", init_on_alloc_of(probe)}};
}

json models_by_phase(const json& fit) {
    json out = json::object();
    const json& phases = at_or_null(fit, "phases");
    if (phases.is_object())
        for (const auto& [phase, entry] : phases.items())
            out[phase] = at_or_null(entry, "model");
    return out;
}

}  // namespace

namespace {

std::vector<model::Warning> probe_warnings(const json& probe) {
    std::vector<model::Warning> w;
    if (at_or_null(at_or_null(probe, "kernel"), "init_on_alloc").is_null())
        w.push_back({"init_on_alloc_unknown",
                     "Whether init_on_alloc is in force could not be read (no cmdline setting, "
                     "kernel config or boot log line); the boot cost assumes it is on (boot zeroes "
                     "every page), which overstates the time if it is off."});
    return w;
}

bool noisy(const model::MeasuredPoint& point) {
    const auto& samples = point.samples_seconds;
    if (samples.size() < 2 || point.median_seconds <= 0)
        return false;
    const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
    return (*hi - *lo) / point.median_seconds > kNoisySpreadRatio;
}

std::vector<model::Warning> point_warnings(const model::MeasuredSweep& sweep) {
    std::set<int> oversubscribed, shortfall, spread;
    for (const auto& p : sweep.points) {
        const int n = p.threads_per_node;
        if (p.oversubscribed)
            oversubscribed.insert(n);
        if (p.shortfall_pages > 0)
            shortfall.insert(n);
        if (noisy(p))
            spread.insert(n);
    }
    std::vector<model::Warning> w;
    if (!oversubscribed.empty())
        w.push_back({"oversubscribed", "Points at " + threads_list(oversubscribed) +
                                           " threads per node exceed the node's hardware "
                                           "threads; they were measured but time-share CPUs."});
    if (!shortfall.empty())
        w.push_back({"shortfall", "Points at " + threads_list(shortfall) +
                                      " threads per node did not obtain every page on the "
                                      "intended node (fragmented memory or a competing "
                                      "process); see shortfall_pages."});
    if (!spread.empty())
        w.push_back({"noisy", "Points at " + threads_list(spread) +
                                  " threads per node spread by more than " +
                                  std::to_string(static_cast<int>(kNoisySpreadRatio * 100)) +
                                  "% of their median; rerun on a quiet machine."});
    return w;
}

// The model words its warnings as clauses; the report gives a sentence each.
std::vector<model::Warning> fit_warnings(const json& fit) {
    std::vector<model::Warning> w;
    for (const auto& m : at_or_null(fit, "warnings")) {
        if (!m.is_object())
            continue;
        auto code = m.value("code", std::string());
        auto message = m.value("message", std::string());
        if (code.empty())
            continue;
        if (!message.empty())
            message[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(message[0])));
        w.push_back({std::move(code), std::move(message)});
    }
    return w;
}

}  // namespace

std::vector<model::Warning> collect_warnings(const json& probe, const model::MeasuredSweep& sweep,
                                             const json& fit) {
    const auto from_fit = fit_warnings(fit);
    std::vector<model::Warning> w;
    std::copy_if(from_fit.begin(), from_fit.end(), std::back_inserter(w),
                 [](const auto& x) { return model::is_machine_warning(x.code); });
    for (auto&& x : probe_warnings(probe))
        w.push_back(std::move(x));
    for (auto&& x : point_warnings(sweep))
        w.push_back(std::move(x));
    std::copy_if(from_fit.begin(), from_fit.end(), std::back_inserter(w),
                 [](const auto& x) { return !model::is_machine_warning(x.code); });
    return w;
}

json build_report(const ReportInputs& in) {
    json warnings = json::array();
    // The sweep's points as its reader reads them (model/documents/sweep.hpp).
    const model::MeasuredSweep measured = model::read_measured_sweep(model::JsonField(in.sweep));
    for (const auto& w : collect_warnings(in.probe, measured, in.fit))
        warnings.push_back({{"code", w.code}, {"message", w.message}});
    json recommendation = at_or_null(in.fit, "recommendation");
    // One decision, one text: what to add to the command line, nothing when the default is kept.
    if (recommendation.is_object() && recommendation.contains("hugepage_alloc_threads"))
        recommendation["kernel_cmdline"] =
            recommendation.value("decision", std::string("set")) == "keep_default"
                ? std::string()
                : alloc_threads_setting(
                      recommendation["hugepage_alloc_threads"].get<std::uint64_t>());
    json sweep = {{"parameters", at_or_null(in.sweep, "parameters")},
                  {"complete", in.sweep.value("complete", true)},
                  {"points", at_or_null(in.sweep, "points")}};
    if (in.sweep.contains("hvo_pass"))
        sweep["hvo_pass"] = in.sweep["hvo_pass"];
    json report = {
        {"schema_version", kReportSchemaVersion},
        {"tool", {{"name", "hugetune"}, {"version", in.tool_version}, {"commit", in.tool_commit}}},
        {"generated_at", iso8601_utc(in.generated_at)},
        {"host", in.probe["host"]},
        {"cpu", in.probe["cpu"]},
        {"topology", in.probe["topology"]},
        {"kernel", in.probe["kernel"]},
        {"virtualization", in.probe["virtualization"]},
        {"sweep", sweep},
        {"model", models_by_phase(in.fit)},
        {"fit", in.fit},
        {"recommendation", recommendation},
        {"boot_pool", in.boot_pool},
        {"sku", sku_of(in.probe, in.sweep)},
        {"warnings", warnings}};
    if (const json& firmware = at_or_null(in.probe, "firmware"); !firmware.is_null())
        report["firmware"] = firmware;
    for (const auto& [key, block] :
         {std::pair<const char*, const json*>{"breakdown", &in.breakdown},
          {"what_if", &in.what_if},
          {"first_touch", &in.first_touch}})
        if (!block->is_null())
            report[key] = *block;
    return report;
}

}  // namespace hugetune
