// false-camps --seed S --skus K [--min-hosts A] [--max-hosts B] [--host-noise H]
//             [--count-noise C] [--repetition-noise R] [--resamples N]
// Generates K clean SKUs (no outlier planted), each of A to B hosts drawn from its one true
// curve with the noise given (log standard deviations: a host's level, its level at one thread
// count, one repetition), answers each as `fleet recommend` does, and prints how many end
// hosts_disagree and by which rule: the false camp rate (docs/fleet.md "Outliers"). A test
// helper: not installed.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "tests/support/clean_fleets.hpp"
#include "tests/support/program_options.hpp"

namespace {

constexpr hugetune::test::ProgramUsage kUsage{
    "false-camps",
    "usage: false-camps --seed S --skus K [--min-hosts A] [--max-hosts B] [--host-noise H] "
    "[--count-noise C] [--repetition-noise R] [--resamples N]"};

std::string share(int part, int whole) {
    char text[64];
    std::snprintf(text, sizeof text, "%d of %d (%.2f%%)", part, whole,
                  whole > 0 ? 100.0 * part / whole : 0.0);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    const auto given = kUsage.options(argc, argv);
    if (!given.contains("--seed") || !given.contains("--skus"))
        kUsage.fail("--seed and --skus are required");
    hugetune::test::FleetSpec spec = hugetune::test::clean_spec(1, 1, 8);
    spec.max_hosts_per_sku = 32;
    hugetune::model::fleet::FleetOptions options;
    // The rules judged need the point estimate only: no bootstrap unless asked.
    options.recommend.resamples = 0;
    options.recommend.spread_sweeps = 0;
    for (const auto& [option, value] : given) {
        if (option == "--seed")
            spec.seed = static_cast<std::uint64_t>(kUsage.number(option, value, 0, 1e15));
        else if (option == "--skus")
            spec.skus = static_cast<int>(kUsage.number(option, value, 1, 100000));
        else if (option == "--min-hosts")
            spec.hosts_per_sku = static_cast<int>(kUsage.number(option, value, 1, 10000));
        else if (option == "--max-hosts")
            spec.max_hosts_per_sku = static_cast<int>(kUsage.number(option, value, 1, 10000));
        else if (option == "--host-noise")
            spec.host_noise = kUsage.number(option, value, 0, 1);
        else if (option == "--count-noise")
            spec.count_noise = kUsage.number(option, value, 0, 1);
        else if (option == "--repetition-noise")
            spec.repetition_noise = kUsage.number(option, value, 0, 1);
        else if (option == "--resamples")
            options.recommend.resamples = static_cast<int>(kUsage.number(option, value, 0, 10000));
        else
            kUsage.fail("unknown option " + option);
    }
    const auto c = hugetune::test::count_false_camps(spec, options);
    std::cout << "clean SKUs: " << c.skus << " (seed " << spec.seed << ", " << spec.hosts_per_sku
              << " to " << std::max(spec.hosts_per_sku, spec.max_hosts_per_sku) << " hosts each, "
              << c.hosts << " hosts in all)\n"
              << "noise (log sd): host level " << spec.host_noise
              << ", host level per thread count " << spec.count_noise << ", repetition "
              << spec.repetition_noise << "\n"
              << "hosts left out as outliers: " << share(c.excluded_hosts, c.hosts) << "\n"
              << "SKUs hosts_disagree by the camp rule: " << share(c.camp, c.skus) << "\n"
              << "SKUs hosts_disagree by the agreement factor: " << share(c.disagreeing, c.skus)
              << "\n"
              << "SKUs hosts_disagree (false camp rate): " << share(c.hosts_disagree, c.skus)
              << "\n";
    for (const auto& e : c.examples)
        std::cout << "  " << e << "\n";
    return 0;
}
