#include "tuner/boot/report_gate.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace hugetune::boot {
namespace {

using nlohmann::json;

const json& member(const json& j, const char* key) {
    static const json null_value;
    return j.is_object() && j.contains(key) ? j.at(key) : null_value;
}

std::optional<std::string> string_member(const json& j, const char* key) {
    const json& v = member(j, key);
    return v.is_string() ? std::optional<std::string>(v.get<std::string>()) : std::nullopt;
}

std::optional<std::uint64_t> count_member(const json& j, const char* key) {
    const json& v = member(j, key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
        return std::nullopt;
    return v.get<std::uint64_t>();
}

// The report's sku against this machine's. Memory per node is left out: hwloc counts a node's
// memory without its huge pages, so it moves with the pool sizes on one and the same machine.
std::optional<std::string> sku_mismatch(const json& sku, const MachineIdentity& m) {
    auto microarch = string_member(sku, "microarch");
    auto nodes = count_member(sku, "nodes");
    auto threads = count_member(sku, "hardware_threads_per_node");
    if (!microarch || !nodes || !threads)
        return "the report has no sku to compare with this machine";
    if (*microarch == m.microarch && *nodes == m.nodes && *threads == m.hardware_threads_per_node)
        return std::nullopt;
    auto describe = [](const std::string& arch, std::uint64_t n, std::uint64_t t) {
        return arch + ", " + std::to_string(n) + " node(s) x " + std::to_string(t) +
               " hardware threads";
    };
    return "the report measured another kind of machine (" +
           describe(*microarch, *nodes, *threads) + "; this one is " +
           describe(m.microarch, m.nodes, m.hardware_threads_per_node) + ")";
}

}  // namespace

ReportStanding report_standing(const json& document) {
    ReportStanding s;
    const json& warnings = member(document, "warnings");
    if (warnings.is_array())
        for (const auto& w : warnings)
            if (auto code = string_member(w, "code"))
                s.warnings.push_back({*code, string_member(w, "message").value_or("")});
    const json& rec = member(document, "recommendation");
    if (member(rec, "confidence").is_number())
        s.confidence = member(rec, "confidence").get<double>();
    s.verdict = string_member(rec, "verdict");
    s.hostname = string_member(member(document, "host"), "hostname");
    s.sku = member(document, "sku");
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
        if (std::find(kUnfitCodes.begin(), kUnfitCodes.end(), w.code) != kUnfitCodes.end())
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
