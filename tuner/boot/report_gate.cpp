#include "tuner/boot/report_gate.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace hugetune::boot {
namespace {

// The report's sku against this machine's. Memory per node is left out: hwloc counts a node's
// memory without its huge pages, so it moves with the pool sizes on one and the same machine.
std::optional<std::string> sku_mismatch(const std::optional<model::SkuKey>& sku,
                                        const MachineIdentity& m) {
    if (!sku)
        return "the report has no sku to compare with this machine";
    const std::string& microarch = sku->microarch;
    const auto nodes = static_cast<std::uint64_t>(sku->nodes);
    const auto threads = static_cast<std::uint64_t>(sku->hardware_threads_per_node);
    if (microarch == m.microarch && nodes == m.nodes && threads == m.hardware_threads_per_node)
        return std::nullopt;
    auto describe = [](const std::string& arch, std::uint64_t n, std::uint64_t t) {
        return arch + ", " + std::to_string(n) + " node(s) x " + std::to_string(t) +
               " hardware threads";
    };
    return "the report measured another kind of machine (" + describe(microarch, nodes, threads) +
           "; this one is " + describe(m.microarch, m.nodes, m.hardware_threads_per_node) + ")";
}

}  // namespace

ReportStanding report_standing(const model::Report& report) {
    ReportStanding s;
    s.confidence = report.recommendation.confidence;
    s.verdict = report.recommendation.verdict;
    if (report.run) {
        s.warnings = report.run->warnings;
        s.hostname = report.run->probe.hostname;
        s.sku = report.run->sku;
    }
    return s;
}

MachineIdentity machine_identity(const Probe& probe) {
    MachineIdentity m;
    m.hostname = probe.hostname;
    m.microarch = probe.cpu.microarch;
    for (const NumaNode* node : probe.topology.memory_nodes()) {
        ++m.nodes;
        m.hardware_threads_per_node =
            std::max<std::uint64_t>(m.hardware_threads_per_node, node->cpus.size());
    }
    return m;
}

std::vector<std::string> standing_notes(const ReportStanding& s) {
    std::vector<std::string> notes;
    notes.push_back(s.confidence
                        ? "report: confidence " + std::to_string(std::lround(*s.confidence * 100)) +
                              "% (share of bootstrap resamples that agree on the recommendation)"
                        : "report: no confidence estimate (too few points)");
    if (s.verdict)
        notes.push_back("report: " + *s.verdict);
    return notes;
}

std::vector<std::string> standing_warnings(const ReportStanding& s) {
    std::vector<std::string> lines;
    for (const auto& w : s.warnings)
        lines.push_back("report [" + w.code + "]: " + w.message);
    return lines;
}

std::vector<std::string> unfit_reasons(const ReportStanding& s,
                                       const std::optional<MachineIdentity>& machine) {
    std::vector<std::string> reasons;
    for (const auto& w : s.warnings)
        if (model::is_unfit_code(w.code))
            reasons.push_back("the report warns [" + w.code + "]");
    if (!machine)
        return reasons;
    if (!s.hostname)
        reasons.push_back("the report does not say which host it measured");
    else if (*s.hostname != machine->hostname)
        reasons.push_back("the report measured host " + *s.hostname + ", not this one (" +
                          machine->hostname + ")");
    if (auto mismatch = sku_mismatch(s.sku, *machine))
        reasons.push_back(*mismatch);
    return reasons;
}

}  // namespace hugetune::boot
