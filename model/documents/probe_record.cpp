// The probe's blocks: their one writer and their one reader.
#include "model/documents/probe_record.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>

#include "model/input/json_fields.hpp"

namespace hugetune::model {
namespace {

// A block as written, or null when absent.
nlohmann::json block_of(const JsonField& block) {
    return block.hint<nlohmann::json>().value_or(nullptr);
}

}  // namespace

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
    return {block_of(doc["host"]),           block_of(doc["cpu"]),
            block_of(doc["topology"]),       block_of(doc["kernel"]),
            block_of(doc["virtualization"]), block_of(doc["firmware"])};
}

}  // namespace hugetune::model
