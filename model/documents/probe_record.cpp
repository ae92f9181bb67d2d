// The probe's blocks: their one writer and their one reader.
#include "model/documents/probe_record.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>

#include "model/input/json_fields.hpp"
#include "model/text.hpp"

namespace hugetune::model {
nlohmann::json to_json(const ProbeRecord& record) {
    nlohmann::json blocks = {{"host", record.host},
                             {"cpu", record.cpu},
                             {"topology", record.topology},
                             {"kernel", record.kernel},
                             {"virtualization", record.virtualization}};
    if (!record.firmware.is_null())
        blocks["firmware"] = record.firmware;
    return blocks;
}

std::vector<ProbeNode> read_probe_nodes(const JsonField& topology) {
    std::vector<ProbeNode> nodes;
    const JsonField topology_nodes = topology["nodes"];
    for (std::size_t i = 0; i < topology_nodes.hint_size(); ++i) {
        const JsonField node = topology_nodes[i];
        nodes.push_back({node.hint<int>("id"), node["cpus"].hint_size(),
                         node.hint<std::uint64_t>("memory_bytes").value_or(0),
                         node.hint<std::uint64_t>("memory_total_bytes").value_or(0)});
    }
    return nodes;
}

ProbeRecord read_probe_record(const JsonField& doc) {
    ProbeRecord r;
    r.host = doc["host"].kept();
    r.cpu = doc["cpu"].kept();
    r.topology = doc["topology"].kept();
    r.kernel = doc["kernel"].kept();
    r.virtualization = doc["virtualization"].kept();
    r.firmware = doc["firmware"].kept();
    r.hostname = doc["host"].hint<std::string>("hostname").value_or("");
    r.hardware_identity = read_hardware_identity(doc["host"]["hardware_identity"]);
    r.cpu_microarch = doc["cpu"].hint<std::string>("microarch").value_or("unknown");
    r.firmware_text = firmware_text(doc["firmware"]);
    return r;
}

std::optional<std::string> firmware_text(const std::optional<std::string>& bios_version,
                                         const std::optional<std::string>& microcode) {
    if (!bios_version && !microcode)
        return std::nullopt;
    return "bios " + bios_version.value_or("unknown") + ", microcode " +
           microcode.value_or("unknown");
}

std::optional<std::string> firmware_text(const JsonField& firmware) {
    if (!firmware.present())
        return std::nullopt;
    firmware.object();
    return firmware_text(firmware["bios_version"].optional_string(),
                         firmware["microcode"].optional_string());
}

std::optional<HardwareIdentity> read_hardware_identity(const JsonField& identity) {
    if (!identity.present())
        return std::nullopt;
    identity.object();
    const JsonField source_field = identity["source"];
    const std::string name = source_field.string();
    const auto source = identity_source(name);
    if (!source)
        source_field.fail("'" + printable_text(name.substr(0, 40)) +
                          "' is not one of dmi_product_uuid, machine_id, none");
    HardwareIdentity out;
    out.source = *source;
    if (out.source == IdentitySource::none) {
        out.reason = identity["reason"].string();
        if (out.reason.empty())
            identity["reason"].fail("must say why the machine has no identity");
        return out;
    }
    out.sha256 = identity["sha256"].string();
    if (!is_identity_hash(out.sha256))
        identity["sha256"].fail("is not 64 lower-case hex digits, the SHA-256 the probe writes");
    return out;
}

}  // namespace hugetune::model
