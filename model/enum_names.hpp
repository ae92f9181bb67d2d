// One table per enum of the names its values are written under, read both ways: the name of a
// value, and the value a name stands for. Two switch statements, one each way, could disagree
// on a name; a table read both ways cannot.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace hugetune {

template <typename Enum, std::size_t N>
using EnumNames = std::array<std::pair<Enum, std::string_view>, N>;

// The name `value` is written under; "?" for a value the table lacks (a table names every one).
template <typename Enum, std::size_t N>
constexpr std::string_view name_of(const EnumNames<Enum, N>& names, Enum value) {
    for (const auto& [v, name] : names)
        if (v == value)
            return name;
    return "?";
}

// No two entries share a value or a name: each table's static_assert.
template <typename Enum, std::size_t N>
constexpr bool names_distinct(const EnumNames<Enum, N>& names) {
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = i + 1; j < N; ++j)
            if (names[i].first == names[j].first || names[i].second == names[j].second)
                return false;
    return true;
}

// The value `name` stands for; nothing for a name the table does not hold.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> value_named(const EnumNames<Enum, N>& names, std::string_view name) {
    for (const auto& [value, n] : names)
        if (n == name)
            return value;
    return std::nullopt;
}

// Every name, in the table's order, as a refusal lists them: "running, finishing, done".
template <typename Enum, std::size_t N>
std::string names_text(const EnumNames<Enum, N>& names) {
    std::string out;
    for (const auto& [value, name] : names)
        out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

}  // namespace hugetune
