// The probe's blocks as the probe wrote them (tuner/probe/probe_output.cpp): a report carries
// them for people and the fleet, and reads only a few facts from them (report.hpp ReportRun).
#pragma once

#include <nlohmann/json.hpp>

namespace hugetune::model {

struct ProbeRecord {
    nlohmann::json host, cpu, topology, kernel, virtualization;
    nlohmann::json firmware;  // null: the probe had none
};

class JsonField;

// The blocks wherever a document keeps them: a report at its top, a sweep under `probe`.
ProbeRecord read_probe_record(const JsonField& blocks);

}  // namespace hugetune::model
