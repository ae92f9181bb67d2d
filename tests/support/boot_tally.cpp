// boot-tally DB SKU database|client
// A SKU's boots tallied as `fleet recommend` tallies them (database: the database's own
// aggregates, fleet_db's boot_tally) or by reading every boot into the client and tallying
// there (client: boots_of_sku, then model::fleet::tally_boots), for the hosts whose latest
// report is of the SKU, each a host of its own (model::fleet::BootHosts of their names; the
// answer joins them by their runs too). Prints the tally on stdout, every number to its last
// bit, so the two can be compared byte for byte; the seconds the tally took (the hosts read
// before) on stderr. A test and benchmark helper: not installed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "fleet_db/fleet_db.hpp"
#include "model/fleet/boot_hosts.hpp"
#include "model/fleet/boots.hpp"

namespace {

std::string bits(double v) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace hugetune;
    const std::string mode = argc == 4 ? argv[3] : "";
    if (mode != "database" && mode != "client") {
        std::cerr << "usage: boot-tally DB SKU database|client\n";
        return 2;
    }
    try {
        auto db = fleet_db::FleetDb::open(fleet_db::parse_db_target(argv[1]), false);
        std::vector<std::string> names;
        for (auto& row : db.host_sku_latest())
            if (row.sku_key == argv[2])
                names.push_back(std::move(row.host));
        const model::fleet::BootHosts hosts(names);
        const auto start = std::chrono::steady_clock::now();
        const auto t = mode == "database"
                           ? db.boot_tally(argv[2], hosts)
                           : model::fleet::tally_boots(db.boots_of_sku(argv[2], hosts));
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        auto medians = t.host_medians;
        std::sort(medians.begin(), medians.end(), [](const auto& a, const auto& b) {
            return std::tie(a.threads, a.host) < std::tie(b.threads, b.host);
        });
        std::cout << "compared " << t.compared.kernel_family << " hvo "
                  << (t.compared.hvo ? (*t.compared.hvo ? "on" : "off") : "unknown") << "\n";
        auto groups = t.groups;
        std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
            return std::tie(a.kernel_release, a.hvo) < std::tie(b.kernel_release, b.hvo);
        });
        for (const auto& g : groups)
            std::cout << "group " << g.kernel_release << " "
                      << (g.hvo ? (*g.hvo ? "on" : "off") : "unknown") << " " << g.boots << "\n";
        for (const auto& [threads, pages] : t.pool_pages)
            std::cout << "pool " << threads << " " << bits(pages) << "\n";
        for (const auto& a : t.ambiguous_boots)
            std::cout << "ambiguous " << a.threads << " " << a.hosts << " " << a.boots << "\n";
        for (const auto& m : medians)
            std::cout << "host " << m.threads << " " << m.host << " " << m.boots << " "
                      << bits(m.ms_per_1000_pages) << "\n";
        std::cerr << "boot-tally: " << mode << " " << medians.size() << " host medians in "
                  << bits(seconds) << " s\n";
    } catch (const std::exception& e) {
        std::cerr << "boot-tally: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
