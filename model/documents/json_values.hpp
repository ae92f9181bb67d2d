// How every document hugetune writes puts a value that may be missing: the value, or null.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

namespace hugetune::model {

template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace hugetune::model
