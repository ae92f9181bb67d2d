// One report file on its way into the fleet database: parsed, checked against the shipped
// schema and by the fleet model, and keyed. Pure: bytes in, a checked report or a refusal out.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "model/fleet/fleet.hpp"

namespace hugetune::fleet_db {

struct IntakeReport {
    std::string name;              // the file name, for messages
    std::string document;          // the report without its verification block, as stored
    model::fleet::RunFacts facts;  // its verifications, read and checked, in facts.verifications
    std::string content_hash;      // of `document`: a later verification block keeps the run's key
};

// Throws FleetDbError (usage) "NAME: reason" for a truncated or malformed document, another
// schema_version or a schema violation, and model::InputError about NAME for a report the fleet
// model cannot fit. `bytes` is taken, and let go once parsed: a large report is held once.
IntakeReport read_intake_report(const std::string& name, std::string bytes);

// 16 hex digits: FNV-1a (64 bits) of `text`. Identifies a document among one host's reports of
// one time, where only an accident or an edit makes two differ; not a defence against forgery.
std::string content_hash(std::string_view text);

}  // namespace hugetune::fleet_db
