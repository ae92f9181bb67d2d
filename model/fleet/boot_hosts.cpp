#include "model/fleet/boot_hosts.hpp"

#include "model/fleet/host_runs.hpp"

namespace hugetune::model::fleet {

BootHosts::BootHosts(const std::vector<std::string>& names) {
    for (const auto& name : names) {
        hosts_.push_back(name);
        add(name, hosts_.size() - 1);
    }
}

BootHosts::BootHosts(const std::vector<HostRuns>& hosts) {
    for (const auto& h : hosts) {
        hosts_.push_back(h.host);
        const std::size_t index = hosts_.size() - 1;
        add(h.host, h.short_name_of.empty() ? std::optional<std::size_t>(index) : std::nullopt);
        for (const auto& other : h.same_machine)
            add(other.host, index);
    }
}

void BootHosts::add(const std::string& name, std::optional<std::size_t> host) {
    names_.emplace(name, host);
    full_names_.add(name);
    if (!host)
        joined_.emplace_back(name, std::nullopt);
    else if (hosts_[*host] != name)
        joined_.emplace_back(name, hosts_[*host]);
}

BootHost BootHosts::of(const std::string& name) const {
    if (const auto at = names_.find(name); at != names_.end())
        return at->second ? BootHost{BootHost::Kind::host, hosts_[*at->second]}
                          : BootHost{BootHost::Kind::ambiguous, {}};
    const std::string_view label = first_label(name);
    if (label.size() == name.size()) {
        const auto& full = full_names_.of(label);
        if (full.size() > 1)
            return {BootHost::Kind::ambiguous, {}};
        return full.empty() ? BootHost{} : of(full.front());
    }
    // A name with a dot is the short name's host only where no report name with a dot begins
    // with that label: else it is another machine than the one the short name was joined to.
    if (!full_names_.of(label).empty())
        return {};
    const auto at = names_.find(std::string(label));
    if (at == names_.end() || !at->second)
        return {};
    return {BootHost::Kind::host, hosts_[*at->second]};
}

std::vector<SkuBoot> boots_of_hosts(std::vector<SkuBoot> boots, const BootHosts& hosts) {
    std::vector<SkuBoot> out;
    out.reserve(boots.size());
    for (auto& b : boots) {
        BootHost h = hosts.of(b.host);
        if (h.kind == BootHost::Kind::unknown)
            continue;
        if (h.kind == BootHost::Kind::host)
            b.host = std::move(h.host);
        else
            b.ambiguous_host = true;
        out.push_back(std::move(b));
    }
    return out;
}

}  // namespace hugetune::model::fleet
