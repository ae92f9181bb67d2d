// How the documents hugetune writes put a value that may be missing: the value, or null; or, in
// a format whose members are left out when unknown (the sweep's), the member only when present.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

namespace hugetune::model {

template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

template <typename T>
void put_present(nlohmann::json& object, const char* key, const std::optional<T>& value) {
    if (value)
        object[key] = *value;
}

}  // namespace hugetune::model
