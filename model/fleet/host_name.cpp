#include "model/fleet/host_name.hpp"

#include <algorithm>
#include <iterator>

#include "model/text.hpp"

namespace hugetune::model::fleet {
namespace {

bool label_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

std::optional<std::string> label_problem(std::string_view label) {
    if (label.empty())
        return std::string("it has an empty label (two dots together, or a leading dot)");
    if (label.size() > kMaxHostLabelChars)
        return "its label '" + std::string(label) + "' is longer than " +
               std::to_string(kMaxHostLabelChars) + " characters";
    if (label.front() == '-' || label.back() == '-')
        return "its label '" + std::string(label) + "' starts or ends with '-'";
    return std::nullopt;
}

// Ansible's own groups, which every inventory has.
constexpr std::string_view kAnsibleOwnGroups[] = {"all", "ungrouped"};

// Group names hold no dot, so only a name of one label can be one.
std::optional<std::string> group_name_problem(const std::string& canonical) {
    if (std::find(std::begin(kAnsibleOwnGroups), std::end(kAnsibleOwnGroups), canonical) !=
        std::end(kAnsibleOwnGroups))
        return "it is the name of Ansible's group '" + canonical +
               "', which a host of that name would take the place of in every play meant for "
               "the group";
    if (canonical.find('.') == std::string::npos && canonical.starts_with(kAnsibleGroupPrefix))
        return "it starts with '" + std::string(kAnsibleGroupPrefix) +
               "' as the SKU groups of the Ansible export do, and a host named like a group "
               "takes its place in every play meant for the group";
    return std::nullopt;
}

}  // namespace

std::optional<std::string> host_name_problem(std::string_view name) {
    if (const auto bad = std::find_if(name.begin(), name.end(),
                                      [](char c) { return !label_char(c) && c != '.'; });
        bad != name.end()) {
        // The whole character a byte of UTF-8 begins, not its first byte alone.
        const auto end = std::find_if(bad + 1, std::min(bad + 4, name.end()), [](char c) {
            return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
        });
        return "it holds '" +
               printable_text(std::string_view(&*bad, static_cast<std::size_t>(end - bad))) +
               "', and a host name holds only letters, digits, '-', '_' and dots";
    }
    if (!name.empty() && name.back() == '.')
        name.remove_suffix(1);
    if (name.empty())
        return std::string("it is empty");
    if (name.size() > kMaxHostNameChars)
        return "it is longer than " + std::to_string(kMaxHostNameChars) + " characters";
    for (std::size_t start = 0;;) {
        const std::size_t dot = name.find('.', start);
        if (const auto p = label_problem(name.substr(start, dot - start)))
            return p;
        if (dot == std::string_view::npos)
            return group_name_problem(canonical_host_name(name));
        start = dot + 1;
    }
}

std::string canonical_host_name(std::string_view name) {
    if (!name.empty() && name.back() == '.')
        name.remove_suffix(1);
    return ascii_lower(name);
}

std::string_view first_label(std::string_view name) {
    return name.substr(0, name.find('.'));
}

void FullNamesByLabel::add(const std::string& name) {
    if (name.find('.') != std::string::npos)
        by_label_[std::string(first_label(name))].push_back(name);
}

const std::vector<std::string>& FullNamesByLabel::of(std::string_view short_name) const {
    static const std::vector<std::string> none;
    const auto at = by_label_.find(short_name);
    return at == by_label_.end() ? none : at->second;
}

}  // namespace hugetune::model::fleet
