#include "tuner/kernel/cmdline.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace hugetune {

// Follows next_arg() in the kernel's lib/cmdline.c: a parameter is split at the first '=';
// double quotes group blanks and are dropped ("a=\"b c\"" gives a = b c).
KernelCmdline parse_kernel_cmdline(std::string_view text) {
    KernelCmdline result;
    std::size_t i = 0;
    auto is_blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (i < text.size()) {
        while (i < text.size() && is_blank(text[i]))
            ++i;
        if (i >= text.size())
            break;
        const std::size_t start = i;
        std::string token;
        bool in_quote = false;
        bool saw_equals = false;
        std::size_t name_end = std::string::npos;
        for (; i < text.size(); ++i) {
            char c = text[i];
            if (c == '"') {
                in_quote = !in_quote;
                continue;
            }
            if (!in_quote && is_blank(c))
                break;
            if (c == '=' && !saw_equals) {
                saw_equals = true;
                name_end = token.size();
            }
            token.push_back(c);
        }
        if (token == "--") {  // the rest belongs to init
            result.init_at = start;
            const auto rest = text.find_first_not_of(" \t\n", i);
            if (rest != std::string_view::npos) {
                const auto end = text.find_last_not_of(" \t\n");
                result.init_args = std::string(text.substr(rest, end + 1 - rest));
            }
            break;
        }
        CmdlineParam p;
        p.raw = std::string(text.substr(start, i - start));
        if (saw_equals) {
            p.name = token.substr(0, name_end);
            p.value = token.substr(name_end + 1);
        } else {
            p.name = token;
        }
        result.params.push_back(std::move(p));
    }
    return result;
}

std::size_t init_args_offset(std::string_view text) {
    return parse_kernel_cmdline(text).init_at;
}

std::string cmdline_text(const KernelCmdline& cmdline) {
    std::string text;
    for (const auto& p : cmdline.params)
        text += (text.empty() ? "" : " ") + p.raw;
    if (cmdline.init_args)
        text += (text.empty() ? "-- " : " -- ") + *cmdline.init_args;
    return text;
}

bool same_param_name(std::string_view a, std::string_view b) {
    auto fold = [](char c) { return c == '-' ? '_' : c; };
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [&](char x, char y) { return fold(x) == fold(y); });
}

std::optional<std::string> KernelCmdline::last(std::string_view name) const {
    for (auto it = params.rbegin(); it != params.rend(); ++it)
        if (same_param_name(it->name, name))
            return it->value.value_or("");
    return std::nullopt;
}

bool is_hugetlb_param(std::string_view name) {
    static constexpr std::array<std::string_view, 7> names = {
        "hugepages",     "hugepagesz",           "default_hugepagesz", "hugepage_alloc_threads",
        "init_on_alloc", "hugetlb_free_vmemmap", "hugetlb_cma"};
    return std::any_of(names.begin(), names.end(),
                       [&](std::string_view known) { return same_param_name(known, name); });
}

std::optional<std::uint64_t> parse_kernel_ulong(std::string_view text) {
    // _kstrtoull() skips one leading '+' before the radix prefix.
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text.remove_prefix(2);
    } else if (text.size() > 1 && text[0] == '0') {
        base = 8;
        text.remove_prefix(1);
    }
    if (!text.empty() && text.back() == '\n')
        text.remove_suffix(1);
    if (text.empty())
        return std::nullopt;
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (ec != std::errc() || ptr != text.data() + text.size())
        return std::nullopt;
    return value;
}

std::optional<std::uint64_t> parse_memsize_kb(std::string_view text) {
    if (text.empty())
        return std::nullopt;
    std::uint64_t shift = 0;
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
        case 'K':
            shift = 10;
            break;
        case 'M':
            shift = 20;
            break;
        case 'G':
            shift = 30;
            break;
        case 'T':
            shift = 40;
            break;
        default:
            break;
    }
    if (shift)
        text.remove_suffix(1);
    // memparse() reads with simple_strtoull(), which takes no sign.
    if (!text.empty() && text.front() == '+')
        return std::nullopt;
    auto number = parse_kernel_ulong(text);
    if (!number)
        return std::nullopt;
    std::uint64_t bytes = *number << shift;
    return bytes / 1024;
}

std::optional<bool> parse_kernel_bool(std::string_view v) {
    if (v == "1" || v == "y" || v == "Y" || v == "on" || v == "On" || v == "ON")
        return true;
    if (v == "0" || v == "n" || v == "N" || v == "off" || v == "Off" || v == "OFF")
        return false;
    return std::nullopt;
}

}  // namespace hugetune
