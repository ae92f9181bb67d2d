// A unified diff (diff -u format, 3 lines of context) of two texts, for --dry-run.
#pragma once

#include <string>
#include <string_view>

namespace hugetune::boot {

// Empty when the texts are equal. Labels go on the "---" and "+++" lines. Labels and lines are
// printable_text (model/text.hpp): the diff is for a terminal, never for `patch`.
std::string unified_diff(std::string_view old_text, std::string_view new_text,
                         std::string_view old_label, std::string_view new_label);

}  // namespace hugetune::boot
