// The probe's blocks as the probe wrote them (tuner/probe/probe_output.cpp): a report carries
// them for people and the fleet, and reads only a few facts from them (report.hpp ReportRun).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "model/input/probe_nodes.hpp"

namespace hugetune::model {

struct ProbeRecord {
    nlohmann::json host, cpu, topology, kernel, virtualization;
    nlohmann::json firmware;  // null: the probe had none
};

class JsonField;

// The blocks as one object (host, cpu, topology, kernel, virtualization, and firmware when the
// probe had one): a sweep keeps it under `probe`, a report at its top.
nlohmann::json to_json(const ProbeRecord& record);

// The blocks wherever a document keeps them: a report at its top, a sweep under `probe`.
ProbeRecord read_probe_record(const JsonField& blocks);

// The NUMA nodes of a `topology` block, as the probe wrote them, for the node facts
// (model/input/probe_nodes.hpp set_node_facts).
std::vector<ProbeNode> read_probe_nodes(const JsonField& topology);

}  // namespace hugetune::model
