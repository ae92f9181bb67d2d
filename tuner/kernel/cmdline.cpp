#include "tuner/kernel/cmdline.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace hugetune {

namespace {

// The kernel's isspace() (lib/ctype.c): the C locale's blanks and also 0xA0, Latin-1's no-break
// space (docs/kernel-facts.md "Kernel command line syntax").
bool kernel_blank(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xA0;
}

std::size_t skip_blanks(std::string_view text, std::size_t i) {
    while (i < text.size() && kernel_blank(text[i]))
        ++i;
    return i;
}

// One word as next_arg() (lib/cmdline.c) splits it at `start`: a '"' anywhere toggles quoting;
// the first '=' after the word's first character splits name from value; a '"' opening the
// word or the value is dropped, and with it a '"' closing the word. Every other '"' stays.
// Returns where the word ends.
std::size_t next_arg(std::string_view text, std::size_t start, CmdlineParam& p) {
    const bool quoted = text[start] == '"';
    const std::size_t body = start + (quoted ? 1 : 0);
    bool in_quote = quoted;
    std::size_t equals = std::string_view::npos, end = body;
    for (; end < text.size() && (in_quote || !kernel_blank(text[end])); ++end) {
        if (equals == std::string_view::npos && end > body && text[end] == '=')
            equals = end;
        if (text[end] == '"')
            in_quote = !in_quote;
    }
    const bool has_value = equals != std::string_view::npos;
    const bool value_quoted = has_value && equals + 1 < end && text[equals + 1] == '"';
    const bool drop_last = end > body && text[end - 1] == '"' && (quoted || value_quoted);
    const std::size_t last = drop_last ? end - 1 : end;
    p.raw = std::string(text.substr(start, end - start));
    p.name = std::string(text.substr(body, (has_value ? equals : last) - body));
    if (has_value) {
        const std::size_t from = equals + 1 + (value_quoted ? 1 : 0);
        p.value = std::string(text.substr(from, std::max(from, last) - from));
    }
    return end;
}

}  // namespace

// parse_args() (kernel/params.c): words from next_arg() until a bare "--", whose rest is init's.
KernelCmdline parse_kernel_cmdline(std::string_view text) {
    KernelCmdline result;
    std::size_t i = skip_blanks(text, 0);
    while (i < text.size()) {
        CmdlineParam p;
        const std::size_t end = next_arg(text, i, p);
        if (!p.value && p.name == "--") {
            result.init_at = i;
            const std::size_t rest = skip_blanks(text, end);
            std::size_t last = text.size();
            while (last > rest && kernel_blank(text[last - 1]))
                --last;
            if (rest < last)
                result.init_args = std::string(text.substr(rest, last - rest));
            break;
        }
        result.params.push_back(std::move(p));
        i = skip_blanks(text, end);
    }
    return result;
}

AllocThreadsOnCmdline kernel_alloc_threads(const KernelCmdline& cmdline) {
    AllocThreadsOnCmdline out;
    for (const auto& p : cmdline.params) {
        // obsolete_checksetup() (init/main.c) matches "hugepage_alloc_threads=" with its '='.
        if (!p.value || !same_param_name(p.name, "hugepage_alloc_threads"))
            continue;
        const auto threads = parse_kernel_ulong(*p.value);
        if (threads && *threads > 0) {
            out.threads = threads;
            out.value = p.value;
        } else {
            out.ignored.push_back(*p.value);
        }
    }
    return out;
}

AllocThreadsOnCmdline kernel_alloc_threads(std::string_view cmdline) {
    return kernel_alloc_threads(parse_kernel_cmdline(cmdline));
}

std::optional<std::string> AllocThreadsOnCmdline::shown() const {
    if (value || ignored.empty())
        return value;
    return ignored.back();
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
    // kstrtoull() skips one leading '+'; _kstrtoull() takes one '\n' after the digits.
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    if (!text.empty() && text.back() == '\n')
        text.remove_suffix(1);
    // _parse_integer_fixup_radix(): "0x" is hexadecimal only before a hex digit; any other
    // leading 0 is octal.
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') &&
        std::isxdigit(static_cast<unsigned char>(text[2]))) {
        base = 16;
        text.remove_prefix(2);
    } else if (!text.empty() && text[0] == '0') {
        base = 8;
    }
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
