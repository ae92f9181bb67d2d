#include "reports/report.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

#include "model/text.hpp"

namespace hugetune {
namespace {

using nlohmann::json;

std::string threads_list(const std::set<int>& ns) {
    std::string out;
    for (int n : ns)
        out += (out.empty() ? "" : ", ") + std::to_string(n);
    return out;
}

const json& at_or_null(const json& j, const char* key) {
    static const json null_value;
    return j.is_object() && j.contains(key) ? j.at(key) : null_value;
}

json sku_of(const json& probe, const json& sweep) {
    const auto& nodes = probe["topology"]["nodes"];
    int memory_nodes = 0;
    std::size_t max_threads = 0;
    std::uint64_t min_memory = 0;
    for (const auto& n : nodes) {
        auto bytes = n.value("memory_bytes", std::uint64_t{0});
        if (bytes == 0)
            continue;
        ++memory_nodes;
        max_threads = std::max(max_threads, n["cpus"].size());
        min_memory = min_memory == 0 ? bytes : std::min(min_memory, bytes);
    }
    double gib = static_cast<double>(min_memory) / (1024.0 * 1024 * 1024);
    return {{"microarch", probe["cpu"].value("microarch", "unknown")},
            {"nodes", memory_nodes},
            {"hardware_threads_per_node", max_threads},
            {"memory_per_node_gib", static_cast<std::int64_t>(std::llround(gib))},
            {"page_size_kb", sweep["parameters"].value("page_size_kb", 2048)}};
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

std::vector<ReportWarning> collect_warnings(const json& probe, const json& sweep, const json& fit) {
    std::vector<ReportWarning> w;
    const json& kernel = probe["kernel"];
    if (probe["virtualization"].value("hypervisor", false))
        w.push_back({"vm",
                     "Measured in a virtual machine: the times include the host's work (first "
                     "touch of guest memory, the host's own page sizes); confirm on bare metal."});
    if (!kernel.value("supports_hugepage_alloc_threads", false))
        w.push_back({"kernel_too_old", "Kernel " + kernel.value("release", std::string("?")) +
                                           " ignores hugepage_alloc_threads= (it needs Linux "
                                           "6.15 or later); the value takes effect only after "
                                           "a kernel upgrade."});
    bool any_small = false, any_gigantic = false;
    for (const auto& r : at_or_null(kernel, "boot_pool")) {
        if (r.value("node_format", false))
            w.push_back({"node_format_hugepages",
                         "The boot command line requests " +
                             page_size_text(r.value("size_kb", 0ull)) +
                             " pages per node (hugepages=N:count): that path allocates serially "
                             "per node and ignores hugepage_alloc_threads=."});
        if (r.value("size_kb", 0ull) >= 1024 * 1024)
            any_gigantic = true;
        else
            any_small = true;
    }
    if (any_gigantic && !any_small)
        w.push_back({"gigantic_only",
                     "Only gigantic (1 GiB) pages are requested at boot; they are allocated "
                     "serially early in boot and hugepage_alloc_threads= does not apply to them."});
    if (at_or_null(kernel, "init_on_alloc").is_null())
        w.push_back({"init_on_alloc_unknown",
                     "Whether init_on_alloc is in force could not be read (no cmdline setting, "
                     "kernel config or boot log line); the boot cost assumes it is off."});

    std::set<int> oversubscribed, shortfall, noisy;
    for (const auto& p : at_or_null(sweep, "points")) {
        int n = p.value("threads_per_node", 0);
        if (p.value("oversubscribed", false))
            oversubscribed.insert(n);
        if (p.value("shortfall_pages", 0) > 0)
            shortfall.insert(n);
        const auto& samples = at_or_null(p, "samples_seconds");
        double median = p.value("median_seconds", 0.0);
        if (samples.is_array() && samples.size() >= 2 && median > 0) {
            auto [lo, hi] = std::minmax_element(
                samples.begin(), samples.end(),
                [](const json& a, const json& b) { return a.get<double>() < b.get<double>(); });
            if ((hi->get<double>() - lo->get<double>()) / median > kNoisySpreadRatio)
                noisy.insert(n);
        }
    }
    if (!oversubscribed.empty())
        w.push_back({"oversubscribed", "Points at " + threads_list(oversubscribed) +
                                           " threads per node exceed the node's hardware "
                                           "threads; they were measured but time-share CPUs."});
    if (!shortfall.empty())
        w.push_back({"shortfall", "Points at " + threads_list(shortfall) +
                                      " threads per node did not obtain every page on the "
                                      "intended node (fragmented memory or a competing "
                                      "process); see shortfall_pages."});
    if (!noisy.empty())
        w.push_back({"noisy", "Points at " + threads_list(noisy) +
                                  " threads per node spread by more than " +
                                  std::to_string(static_cast<int>(kNoisySpreadRatio * 100)) +
                                  "% of their median; rerun on a quiet machine."});
    // The model's own warnings (low confidence, fallbacks, ...), where they add to the ones
    // above (same code: same fact).
    for (const auto& m : at_or_null(fit, "warnings")) {
        if (!m.is_object())
            continue;
        auto code = m.value("code", std::string());
        bool known = std::any_of(w.begin(), w.end(), [&](const auto& x) { return x.code == code; });
        if (code.empty() || known)
            continue;
        // The model words its warnings as clauses; the report gives a sentence each.
        auto message = m.value("message", std::string());
        if (!message.empty())
            message[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(message[0])));
        w.push_back({code, message});
    }
    return w;
}

json build_report(const ReportInputs& in) {
    json warnings = json::array();
    for (const auto& w : collect_warnings(in.probe, in.sweep, in.fit))
        warnings.push_back({{"code", w.code}, {"message", w.message}});
    json recommendation = at_or_null(in.fit, "recommendation");
    if (recommendation.is_object() && recommendation.contains("hugepage_alloc_threads"))
        recommendation["kernel_cmdline"] =
            "hugepage_alloc_threads=" +
            std::to_string(recommendation["hugepage_alloc_threads"].get<long long>());
    json sweep = {{"parameters", at_or_null(in.sweep, "parameters")},
                  {"complete", in.sweep.value("complete", true)},
                  {"points", at_or_null(in.sweep, "points")}};
    return {{"schema_version", kReportSchemaVersion},
            {"tool", {{"name", "hugetune"}, {"version", in.tool_version}}},
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
}

}  // namespace hugetune
