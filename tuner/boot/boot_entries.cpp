#include "tuner/boot/boot_entries.hpp"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "tuner/boot/kernel_cmdline_file.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot {
namespace {

struct OptionsLine {
    std::size_t value_begin = 0, value_end = 0;  // bytes of the value in the entry's text
};

// The value of an `options` line as systemd-boot reads it (docs/kernel-facts.md "systemd-boot's
// entries"): blanks around the line dropped, the key up to the first blank, the value after the
// blanks that follow, one pair of double quotes around the whole value removed; a line without a
// value is skipped. Returns the value's bytes within `line`.
std::optional<std::pair<std::size_t, std::size_t>> options_value(std::string_view line) {
    constexpr std::string_view blanks = " \t";
    const std::size_t begin = line.find_first_not_of(blanks);
    if (begin == std::string_view::npos)
        return std::nullopt;
    const std::size_t end = line.find_last_not_of(blanks) + 1;
    const std::size_t key_end = line.find_first_of(blanks, begin);
    if (key_end >= end || line.substr(begin, key_end - begin) != "options")
        return std::nullopt;
    std::size_t value = line.find_first_not_of(blanks, key_end);
    std::size_t value_end = end;
    if (line[value] == '"' && line[end - 1] == '"') {
        ++value;
        value_end = std::max(value, end - 1);
    }
    return std::pair{value, value_end};
}

// Every `options` line, in order; a line ends at '\n' or '\r', as in systemd-boot.
std::vector<OptionsLine> options_lines(const std::string& text) {
    std::vector<OptionsLine> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find_first_of("\n\r", at);
        if (end == std::string::npos)
            end = text.size();
        if (auto value = options_value(std::string_view(text).substr(at, end - at)))
            lines.push_back({at + value->first, at + value->second});
        at = end + 1;
    }
    return lines;
}

std::optional<std::string> read_token(const KernelFs& root, std::string_view path) {
    auto line = root.read_line(path);
    if (!line || line->empty())
        return std::nullopt;
    return line;
}

}  // namespace

BootEntries read_boot_entries(const KernelFs& root) {
    BootEntries entries;
    for (std::string_view source : {"/etc/kernel/entry-token", "/etc/machine-id"}) {
        entries.entry_token = read_token(root, source);
        if (entries.entry_token) {
            entries.token_source = source;
            break;
        }
    }
    for (std::string_view boot : kBootDirs) {
        std::string dir = std::string(boot) + "/loader/entries";
        for (const auto& name : root.list(dir)) {
            if (!name.ends_with(".conf"))
                continue;
            std::string path = dir + "/" + name;
            bool own = entries.entry_token && name.starts_with(*entries.entry_token + "-");
            if (!own) {
                entries.others.push_back(path);
                continue;
            }
            if (auto file = read_config_file(root, path))
                entries.own.push_back(std::move(*file));
        }
    }
    return entries;
}

std::string edit_boot_entry_text(const std::string& path, const std::string& text,
                                 const std::optional<std::string>& value) {
    auto lines = options_lines(text);
    if (lines.empty()) {
        if (!value)
            return text;
        std::string sep = text.empty() || text.ends_with('\n') ? "" : "\n";
        return text + sep + "options " + std::string(kAllocThreadsParam) + "=" + *value + "\n";
    }
    // systemd-boot joins the options lines with blanks: after a line with a bare "--" every
    // later line is init's too, and stays as it is.
    std::size_t kernel_lines = lines.size();
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (init_args_offset(
                text.substr(lines[i].value_begin, lines[i].value_end - lines[i].value_begin)) !=
            std::string::npos) {
            kernel_lines = i + 1;
            break;
        }
    lines.resize(kernel_lines);
    // The value goes where it was, else on the last of those lines; the others lose theirs.
    std::size_t keep = lines.size() - 1;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::string v =
            text.substr(lines[i].value_begin, lines[i].value_end - lines[i].value_begin);
        if (kernel_alloc_threads(std::string_view(v)).shown()) {
            keep = i;
            break;
        }
    }
    std::vector<Replacement> changes;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto& l = lines[i];
        std::string v = text.substr(l.value_begin, l.value_end - l.value_begin);
        std::optional<std::string> wanted = i == keep ? value : std::nullopt;
        std::string edited = v.empty() && wanted ? std::string(kAllocThreadsParam) + "=" + *wanted
                                                 : edit_kernel_cmdline_text(path, v, wanted);
        if (edited != v)
            changes.push_back({l.value_begin, l.value_end, edited});
    }
    return apply_replacements(text, changes);
}

std::optional<std::string> boot_entry_alloc_threads(const std::string& text) {
    std::string all;
    for (const auto& l : options_lines(text))
        all += text.substr(l.value_begin, l.value_end - l.value_begin) + " ";
    return kernel_cmdline_alloc_threads(all);
}

}  // namespace hugetune::boot
