// Kernel command line tokens inside a value whose characters are mapped to source bytes
// (a shell word in /etc/default/grub, or the plain text of /etc/kernel/cmdline), and the
// byte-range replacements that set or remove one parameter without touching anything else.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/boot/shell_fragment.hpp"

namespace hugetune::boot {

inline constexpr std::string_view kAllocThreadsParam = "hugepage_alloc_threads";

// "hugepage_alloc_threads=VALUE", as it stands on a command line.
inline std::string alloc_threads_param(std::string_view value) {
    return std::string(kAllocThreadsParam) + "=" + std::string(value);
}

struct Replacement {
    std::size_t begin = 0, end = 0;  // source bytes replaced
    std::string text;
};

// Applies non-overlapping replacements (any order) to `text`.
std::string apply_replacements(std::string_view text, std::vector<Replacement> replacements);

// The value's pieces turned into text, expansions left out.
std::string literal_text(const std::vector<WordPiece>& pieces);

// Replacements that remove every `name=` token of `pieces` (with one blank next to each),
// except that, when `keep_value` is set, the first one keeps its place and gets that value.
// Returns whether a token was kept (false: the caller must insert one).
bool edit_param_tokens(const std::vector<WordPiece>& pieces, std::string_view name,
                       const std::optional<std::string>& keep_value, std::vector<Replacement>& out);

// Values hugetune writes: digits and letters only, safe inside any shell quoting.
bool is_safe_param_value(std::string_view value);

}  // namespace hugetune::boot
