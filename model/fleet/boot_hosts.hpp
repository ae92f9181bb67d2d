// Which of a SKU's hosts a boot record is of (docs/fleet.md "What counts as evidence"): the
// hosts its reports name, joined as the answer joins them (docs/fleet.md "The host-name rule"),
// and a record's host read by the same short-name rule, so that one machine has one vote
// whichever of its names it booted under.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/fleet/boots.hpp"
#include "model/fleet/host_name.hpp"

namespace hugetune::model::fleet {

struct HostRuns;

// What a boot record's host is among a SKU's hosts.
struct BootHost {
    enum class Kind {
        host,       // the SKU's host `host`, as the answer counts hosts
        ambiguous,  // a short name that two or more of the reports' names begin with
        unknown,    // no report of the SKU names it
    };
    Kind kind = Kind::unknown;
    std::string host;
};

class BootHosts {
  public:
    // Each name a host of its own.
    explicit BootHosts(const std::vector<std::string>& names);
    // The hosts as read_host_runs groups them: a host's name and the names joined into it
    // (same_machine) are that host; a short name left apart because two or more stored names
    // begin with it (short_name_of) is ambiguous.
    explicit BootHosts(const std::vector<HostRuns>& hosts);

    // A name the reports carry is its host's. A short name they do not carry is the host of
    // the one name with a dot whose first label it is (of two or more, ambiguous); a name with a
    // dot they do not carry, the host of its first label where a report carries that short name
    // and no name with a dot begins with it. Any other name is unknown.
    BootHost of(const std::string& name) const;

    // The names the reports carry that are not their own host's name: each with its host, or
    // nothing where it is ambiguous. A boot under any other name the reports carry counts for
    // the host of that name.
    const std::vector<std::pair<std::string, std::optional<std::string>>>& joined() const {
        return joined_;
    }

  private:
    void add(const std::string& name, std::optional<std::size_t> host);
    std::vector<std::string> hosts_;
    std::unordered_map<std::string, std::optional<std::size_t>> names_;  // nothing: ambiguous
    FullNamesByLabel full_names_;
    std::vector<std::pair<std::string, std::optional<std::string>>> joined_;
};

// Of `boots`, those whose host is one of `hosts` (BootHosts::of), each under its host's name,
// and those under an ambiguous name, as they were and marked (SkuBoot::ambiguous_host); the
// others are left out.
std::vector<SkuBoot> boots_of_hosts(std::vector<SkuBoot> boots, const BootHosts& hosts);

}  // namespace hugetune::model::fleet
