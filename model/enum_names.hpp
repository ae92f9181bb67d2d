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

#include "model/text.hpp"

namespace hugetune {

template <typename Enum, std::size_t N>
using EnumNames = std::array<std::pair<Enum, std::string_view>, N>;

// The table of `entries`, made at compile time: a value or a name given twice does not compile
// (a throw in a consteval function is an error where the table is defined).
//     constexpr auto kFinishNames = enum_names<Finish>({{Finish::kexec, "kexec"}, ...});
template <typename Enum, std::size_t N>
consteval EnumNames<Enum, N> enum_names(const std::pair<Enum, std::string_view> (&entries)[N]) {
    EnumNames<Enum, N> names{};
    for (std::size_t i = 0; i < N; ++i) {
        for (std::size_t j = 0; j < i; ++j)
            if (entries[i].first == entries[j].first || entries[i].second == entries[j].second)
                throw "an enum's names table gives a value or a name twice";
        names[i] = entries[i];
    }
    return names;
}

// The name `value` is written under; "?" for a value the table lacks (a table names every one).
template <typename Enum, std::size_t N>
constexpr std::string_view name_of(const EnumNames<Enum, N>& names, Enum value) {
    for (const auto& [v, name] : names)
        if (v == value)
            return name;
    return "?";
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
    return join(names, ", ", [](const auto& entry) { return std::string(entry.second); });
}

}  // namespace hugetune
