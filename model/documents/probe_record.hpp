// The probe's blocks as the probe wrote them (tuner/probe/probe_output.cpp): a report carries
// them for people and the fleet, and takes only a few facts from them (report.hpp ReportRun),
// which the record holds typed beside the blocks.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/hardware_identity.hpp"
#include "model/input/probe_nodes.hpp"

namespace hugetune::model {

struct ProbeRecord {
    nlohmann::json host, cpu, topology, kernel, virtualization;
    nlohmann::json firmware;  // null: the probe had none
    // The facts a report takes from the blocks, typed: made with the blocks from the probe
    // itself (tuner/probe/probe.hpp probe_record), or read from them (read_probe_record).
    std::string hostname;                               // host.hostname; "" when none
    std::optional<HardwareIdentity> hardware_identity;  // host.hardware_identity
    std::string cpu_microarch = "unknown";              // cpu.microarch
    std::optional<std::string> firmware_text;           // firmware_text() of the blocks
};

// "bios <version>, microcode <revision>", either "unknown" when only the other is known;
// nothing when neither is.
std::optional<std::string> firmware_text(const std::optional<std::string>& bios_version,
                                         const std::optional<std::string>& microcode);

class JsonField;

// The blocks as one object (host, cpu, topology, kernel, virtualization, and firmware when the
// probe had one): a sweep keeps it under `probe`, a report at its top.
nlohmann::json to_json(const ProbeRecord& record);

// The blocks wherever a document keeps them: a report at its top, a sweep under `probe`; the
// typed facts read from them as a report's reader reads them. InputError for a damaged
// `firmware` block or `hardware_identity`.
ProbeRecord read_probe_record(const JsonField& blocks);

// "bios <version>, microcode <revision>" from a probe's optional `firmware` block; nothing when
// it is absent or names neither.
std::optional<std::string> firmware_text(const JsonField& firmware);

// A host block's optional `hardware_identity` (model/hardware_identity.hpp): its source and hash,
// or no source and why; nothing when absent.
std::optional<HardwareIdentity> read_hardware_identity(const JsonField& identity);

// The NUMA nodes of a `topology` block, as the probe wrote them, for the node facts
// (model/input/probe_nodes.hpp set_node_facts).
std::vector<ProbeNode> read_probe_nodes(const JsonField& topology);

}  // namespace hugetune::model
