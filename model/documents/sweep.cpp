// Reads the measured block of `hugetune-sweep` documents and reports (docs/sweep-format.md).
#include "model/documents/sweep.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "model/alloc_threads.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"

namespace hugetune::model {
namespace {

// `read` counts the samples of the document so far, against kMaxInputSamples.
std::vector<double> read_samples(const JsonField& point, std::size_t& read) {
    const JsonField samples = point["samples_seconds"];
    if (samples.present() && samples.array_size() == 0)
        samples
            .with_fix(
                "a point needs at least one measured time; remove the field to use "
                "median_seconds")
            .fail("empty");
    read += std::max<std::size_t>(samples.hint_size(), 1);
    if (read > kMaxInputSamples)
        samples.with_fix(std::string(kFewerSamplesFix))
            .fail("more than " + std::to_string(kMaxInputSamples) +
                  " samples in the sweep, the most hugetune reads");
    std::vector<double> seconds = samples.positive_numbers();
    for (std::size_t i = 0; i < seconds.size(); ++i)
        if (seconds[i] > kMaxSampleSeconds)
            samples[i].fail("is above a day, longer than any step of a sweep takes");
    return seconds;
}

MeasuredPoint read_point(const JsonField& point, std::size_t& read) {
    point.object();
    MeasuredPoint p;
    p.phase = point["phase"].string();
    if (p.phase != kPhaseAlloc && p.phase != kPhaseZero && p.phase != kPhaseGrow)
        point["phase"].fail("'" + p.phase + "' is not one of alloc, zero, grow");
    p.threads_per_node = static_cast<int>(
        point["threads_per_node"].whole_number({1, static_cast<std::int64_t>(kMaxAllocThreads)}));
    p.page_size_kb = point.hint<std::uint64_t>("page_size_kb").value_or(0);
    const JsonField pages = point["pages_per_node"];
    p.pages_per_node = pages.positive_number();
    const std::uint64_t page_kb = p.page_size_kb > 0 ? p.page_size_kb : kSmallestHugePageKb;
    if (p.pages_per_node > static_cast<double>(kMaxPoolKbPerNode / page_kb))
        pages.fail("is a pool above 1 PiB per node, more than any machine holds");
    p.samples_seconds = read_samples(point, read);
    const JsonField median = point["median_seconds"];
    p.median_seconds =
        p.samples_seconds.empty() ? median.positive_number() : median.hint<double>().value_or(0);
    if (p.samples_seconds.empty() && p.median_seconds > kMaxSampleSeconds)
        median.fail("is above a day, longer than any step of a sweep takes");
    p.gib_per_second = point.hint<double>("gib_per_second").value_or(0);
    p.oversubscribed = point.hint<bool>("oversubscribed").value_or(false);
    p.shortfall_pages = point.hint<std::uint64_t>("shortfall_pages").value_or(0);
    p.nodes_serialised = point.hint<bool>("nodes_serialised").value_or(false);
    p.total_threads = point.hint<int>("total_threads").value_or(0);
    p.thread_seconds = point.hint<std::vector<std::vector<double>>>("thread_seconds");
    p.node_pages = point.hint<std::vector<std::uint64_t>>("node_pages");
    p.expected_node_pages = point.hint<std::vector<std::uint64_t>>("expected_node_pages");
    return p;
}

// What `parameters` states beside the members the fit reads: informative, so read as hints.
SweepAsked read_asked(const JsonField& parameters) {
    SweepAsked a;
    a.threads_per_node =
        parameters.hint<std::vector<int>>("threads_per_node").value_or(std::vector<int>{});
    a.repetitions = parameters.hint<int>("repetitions");
    a.phases =
        parameters.hint<std::vector<std::string>>("phases").value_or(std::vector<std::string>{});
    a.sample_mib_per_node = parameters.hint<std::uint64_t>("sample_mib_per_node");
    a.max_memory_fraction = parameters.hint<double>("max_memory_fraction");
    a.memory_nodes = parameters.hint<std::vector<int>>("memory_nodes");
    a.boot_node = parameters.hint<int>("boot_node");
    return a;
}

Sampling read_sampling(const JsonField& sampling) {
    Sampling s;
    s.rule = sampling.hint<std::string>("rule").value_or("");
    s.rounds = sampling.hint<int>("rounds");
    s.stopped = sampling.hint<std::string>("stopped").value_or("");
    s.first_rounds = sampling.hint<int>("first_rounds");
    s.max_repetitions = sampling.hint<int>("max_repetitions");
    s.tolerance = sampling.hint<double>("tolerance");
    s.budget_seconds = sampling.hint<double>("budget_seconds");
    return s;
}

}  // namespace

std::vector<double> MeasuredPoint::seconds() const {
    return samples_seconds.empty() ? std::vector<double>{median_seconds} : samples_seconds;
}

MeasuredSweep read_measured_sweep(const JsonField& sweep) {
    MeasuredSweep m;
    m.input = sweep.input();
    m.complete = sweep.hint<bool>("complete").value_or(true);
    const JsonField parameters = sweep["parameters"];
    parameters.object();
    m.page_size_kb = static_cast<std::uint64_t>(parameters["page_size_kb"].whole_number());
    m.seed = parameters.hint<std::uint64_t>("seed").value_or(1);
    for (std::size_t i = 0; i < parameters["nodes"].hint_size(); ++i)
        if (const auto id = parameters["nodes"][i].hint<int>())
            m.nodes.push_back(*id);
    if (const JsonField placement = parameters["placement"]; placement.present()) {
        m.placement = placement.string();
        if (m.placement != kPlacementBoot && m.placement != kPlacementNodeLocal)
            placement.fail("'" + m.placement + "' is not one of boot, node-local");
    }
    m.asked = read_asked(parameters);
    const std::size_t points = sweep["points"].array_size();
    std::size_t read = 0;
    for (std::size_t i = 0; i < points; ++i)
        m.points.push_back(read_point(sweep["points"][i], read));
    const JsonField hvo = sweep["hvo_pass"];
    if (hvo.present() && hvo["points"].present()) {
        hvo.object();
        HvoPass pass;
        pass.as_is = hvo["hugetlb_optimize_vmemmap_as_is"].whole_number({0, 1}) == 1;
        pass.flipped = hvo["hugetlb_optimize_vmemmap"].whole_number({0, 1}) == 1;
        if (pass.flipped == pass.as_is)
            hvo["hugetlb_optimize_vmemmap"].fail("is the value the other points ran with");
        const std::size_t count = hvo["points"].array_size();
        for (std::size_t i = 0; i < count; ++i) {
            MeasuredPoint p = read_point(hvo["points"][i], read);
            if (p.phase == kPhaseZero)
                hvo["points"][i]["phase"].fail(
                    "is zero, which allocates nothing for HVO to change");
            pass.points.push_back(std::move(p));
        }
        m.hvo_pass = std::move(pass);
    } else if (hvo.present()) {
        m.hvo_note = hvo.hint<std::string>("note").value_or("");
    }
    if (const JsonField sampling = sweep["sampling"]; sampling.present())
        m.sampling = read_sampling(sampling);
    for (std::size_t i = 0; i < sweep["warnings"].hint_size(); ++i)
        if (auto w = sweep["warnings"][i].hint<std::string>())
            m.warnings.push_back(std::move(*w));
    return m;
}

Message sweep_document_fix() {
    return "give a file written by 'hugetune sweep " + Flag{"out"} + "'";
}

void check_sweep_format(const nlohmann::json& document, const InputSource& input) {
    const JsonField doc(document, sweep_document_fix(), input);
    if (!document.is_object())
        doc.fail("not a JSON object");
    if (doc.hint<std::string>("format") != kSweepFormat)
        doc["format"].fail(std::string("not '") + kSweepFormat + "'");
    const auto version =
        doc["format_version"].whole_number({std::numeric_limits<std::int64_t>::min()});
    if (version != kSweepFormatVersion)
        doc["format_version"].fail(std::to_string(version) +
                                   " is not supported (this hugetune reads version " +
                                   std::to_string(kSweepFormatVersion) + ")");
}

}  // namespace hugetune::model
