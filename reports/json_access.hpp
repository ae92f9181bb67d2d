// Reading a report document whose blocks may be absent (older reports, interrupted runs).
#pragma once

#include <nlohmann/json.hpp>

namespace hugetune {

// `j[key]` when `j` is an object that has it, otherwise a null value; never inserts, so it reads
// a const document of any shape.
inline const nlohmann::json& at_or_null(const nlohmann::json& j, const char* key) {
    static const nlohmann::json null_value;
    return j.is_object() && j.contains(key) ? j.at(key) : null_value;
}

}  // namespace hugetune
