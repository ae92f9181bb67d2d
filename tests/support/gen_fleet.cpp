// gen-fleet --seed S --out DIR [--skus K] [--hosts-per-sku H] [--outliers O] [--verify-share F]
// Writes DIR/<host>.json, one report per host, and DIR/truth.json. A test helper: not installed.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "tests/support/fleet_generator.hpp"
#include "tuner/system/atomic_file.hpp"

namespace {

constexpr const char* kUsage =
    "usage: gen-fleet --seed S --out DIR [--skus K] [--hosts-per-sku H] [--outliers O] "
    "[--verify-share F]";

[[noreturn]] void usage_error(const std::string& problem) {
    std::cerr << "gen-fleet: error: " << problem << "\n" << kUsage << "\n";
    std::exit(2);
}

double number(const std::string& option, const std::string& text, double min, double max) {
    std::size_t end = 0;
    double value = 0;
    try {
        value = std::stod(text, &end);
    } catch (const std::exception&) {
        end = 0;
    }
    if (end != text.size() || !(value >= min && value <= max))
        usage_error(option + " '" + text + "': give a number from " + std::to_string(min) + " to " +
                    std::to_string(max));
    return value;
}

}  // namespace

int main(int argc, char** argv) {
    std::map<std::string, std::string> given;
    for (int i = 1; i < argc; i += 2) {
        const std::string option = argv[i];
        if (i + 1 >= argc)
            usage_error(option + " needs a value");
        given[option] = argv[i + 1];
    }
    hugetune::test::FleetSpec spec;
    if (!given.contains("--seed") || !given.contains("--out"))
        usage_error("--seed and --out are required");
    for (const auto& [option, value] : given) {
        if (option == "--seed")
            spec.seed = static_cast<std::uint64_t>(number(option, value, 0, 1e15));
        else if (option == "--skus")
            spec.skus = static_cast<int>(number(option, value, 1, 100));
        else if (option == "--hosts-per-sku")
            spec.hosts_per_sku = static_cast<int>(number(option, value, 1, 1000));
        else if (option == "--outliers")
            spec.outliers_per_sku = static_cast<int>(number(option, value, 0, 1000));
        else if (option == "--verify-share")
            spec.verify_share = number(option, value, 0, 1);
        else if (option != "--out")
            usage_error("unknown option " + option);
    }
    const std::filesystem::path out = given["--out"];
    try {
        std::filesystem::create_directories(out);
        const auto fleet = hugetune::test::generate_fleet(spec);
        for (const auto& [host, report] : fleet.reports)
            hugetune::write_file_atomically(out / (host + ".json"), report.dump(2) + "\n");
        hugetune::write_file_atomically(out / "truth.json", fleet.truth_json().dump(2) + "\n");
        std::cerr << "gen-fleet: wrote " << fleet.reports.size() << " reports and truth.json to "
                  << out.string() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "gen-fleet: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
