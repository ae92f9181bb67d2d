// The host-name rule (docs/fleet.md "The host-name rule"): which names a report may carry into
// the fleet database, and how two names are told to be one host.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune::model::fleet {

// RFC 1035 section 2.3.4 and RFC 1123 section 2.1: a name of at most 253 characters (without
// the root's trailing dot), labels of 1 to 63.
inline constexpr std::size_t kMaxHostNameChars = 253;
inline constexpr std::size_t kMaxHostLabelChars = 63;

// The start of every group name of the Ansible inventory `fleet export` writes ("hugetune_"
// and the SKU's key): no host name may start so (host_name_problem).
inline constexpr std::string_view kAnsibleGroupPrefix = "hugetune_";

// Why `name` is not a host name the fleet stores, absent when it is one: labels of ASCII
// letters, digits, '-' and '_' (not RFC 1123's, but hosts named so exist and every export
// carries it), neither starting nor ending with '-', separated by single dots, one trailing dot
// allowed. Names such as "[list]", "a b" or "web:17" are refused: the exports' tools (Ansible's
// host patterns above all) read them as something else. So are the names an Ansible group has
// or may have, in any case: "all", "ungrouped", and a name of one label starting with
// kAnsibleGroupPrefix. Ansible takes a pattern that names both a host and a group for the host,
// so a host named "all" would be the only target of every play meant for all hosts.
std::optional<std::string> host_name_problem(std::string_view name);

// The name as the fleet stores and compares it, as DNS compares names (RFC 4343): lower case,
// without the trailing dot. "WEB-17" and "web-17." are "web-17". For a name host_name_problem
// accepts.
std::string canonical_host_name(std::string_view name);

// The first label: "web-17" of "web-17.example.com", the name itself when it has no dot.
std::string_view first_label(std::string_view name);

// The short-name rule's look-up (docs/fleet.md "The host-name rule"): of the names added, those
// with a dot, by their first label. A short name (no dot) is the host of the one such name it is
// the first label of; of two or more it is ambiguous, as which machine it is cannot be told.
class FullNamesByLabel {
  public:
    // A name without a dot is not kept.
    void add(const std::string& name);
    // The names added whose first label `short_name` is: empty for none, and for a name with a
    // dot.
    const std::vector<std::string>& of(std::string_view short_name) const;

  private:
    std::map<std::string, std::vector<std::string>, std::less<>> by_label_;
};

}  // namespace hugetune::model::fleet
