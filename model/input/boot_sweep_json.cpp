// Reads the result of `hugetune boot-sweep` (format "hugetune-boot-sweep") as a measured boot
// table: the kernel's own allocation time at each total thread count, spread over the nodes
// the result names.
#include <limits>

#include "model/alloc_threads.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"

namespace hugetune::model {
namespace {

constexpr double kMsPerSecond = 1000;

PhaseSeries read_steps(const JsonField& steps, int nodes) {
    PhaseSeries series;
    series.phase = std::string(kPhaseBoot);
    for (std::size_t i = 0; i < steps.array_size(); ++i) {
        const JsonField step = steps[i];
        const auto threads = step["threads"].whole_number({1, std::numeric_limits<int>::max()});
        if (!step["milliseconds"].present())
            continue;  // a step the sweep did not record
        const auto ms = step["milliseconds"].whole_number({0});
        if (ms == 0)
            step["milliseconds"].fail(
                "0 ms measures nothing (the pool is too small for the log's resolution)");
        series.points.push_back(
            {static_cast<double>(threads) / nodes, static_cast<double>(ms) / kMsPerSecond, 1});
    }
    return series;
}

}  // namespace

SweepData parse_boot_sweep_json(const nlohmann::json& document, const InputSource& input) {
    const JsonField doc(document, "give a result written by 'hugetune boot-sweep'", input);
    doc.object();
    if (doc["format"].hint<std::string>() != kBootSweepFormat)
        doc["format"].fail(std::string("not '") + kBootSweepFormat + "'");
    if (const auto v = doc["format_version"].whole_number({0}); v != kBootSweepFormatVersion)
        doc["format_version"].fail(std::to_string(v) + " is not supported (this hugetune reads " +
                                   std::to_string(kBootSweepFormatVersion) + ")");
    SweepData data;
    data.source = "boot-sweep";
    data.input = input;
    data.complete = doc["complete"].hint<bool>().value_or(false);
    const int nodes = static_cast<int>(doc["nodes"].whole_number({1, kMaxNodes}));
    data.page_size_kb = static_cast<std::uint64_t>(doc["page_size_kb"].whole_number());
    MachineFacts& m = data.machine;
    m.nodes = nodes;
    m.online_cpus = static_cast<int>(doc["kernel"]["online_cpus"].whole_number({nodes, 1 << 20}));
    m.kernel_release = doc["kernel"]["release"].optional_string();
    m.supports_alloc_threads = true;  // the kernel logged the counts it was given
    m.init_on_alloc = doc["init_on_alloc"].hint<bool>();
    m.boot_pool_pages = static_cast<std::uint64_t>(doc["pages"].whole_number());
    m.boot_requests.push_back({data.page_size_kb, m.boot_pool_pages, false});
    data.phases.push_back(read_steps(doc["steps"], nodes));
    if (!data.complete)
        data.notes.push_back("the boot sweep did not record every step: fitting the ones it did");
    return data;
}

}  // namespace hugetune::model
