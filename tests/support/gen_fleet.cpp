// gen-fleet --seed S --out DIR [--skus K] [--hosts-per-sku H] [--outliers O] [--verify-share F]
//           [--fit-once 0|1] [--compact 0|1] [--boot-hosts-per-sku B]
// Writes DIR/<host>.json, one report per host, as each is made, and DIR/truth.json; with B,
// DIR/boots.jsonl too: B more hosts per SKU that each recorded one boot. A test
// helper: not installed. --fit-once 1: every host's report carries its SKU's first host's fit
// (its own samples still), which makes a fleet of 100,000 hosts quick to generate; --compact 1:
// reports without indentation, a third smaller.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "tests/support/fleet_generator.hpp"
#include "tests/support/program_options.hpp"
#include "tuner/system/atomic_file.hpp"

namespace {

constexpr hugetune::test::ProgramUsage kUsage{
    "gen-fleet",
    "usage: gen-fleet --seed S --out DIR [--skus K] [--hosts-per-sku H] [--outliers O] "
    "[--verify-share F] [--fit-once 0|1] [--compact 0|1] [--boot-hosts-per-sku B]"};

}  // namespace

int main(int argc, char** argv) {
    auto given = kUsage.options(argc, argv);
    const auto number = [](const std::string& option, const std::string& text, double min,
                           double max) { return kUsage.number(option, text, min, max); };
    hugetune::test::FleetSpec spec;
    if (!given.contains("--seed") || !given.contains("--out"))
        kUsage.fail("--seed and --out are required");
    for (const auto& [option, value] : given) {
        if (option == "--seed")
            spec.seed = static_cast<std::uint64_t>(number(option, value, 0, 1e15));
        else if (option == "--skus")
            spec.skus = static_cast<int>(number(option, value, 1, 100));
        else if (option == "--hosts-per-sku")
            spec.hosts_per_sku = static_cast<int>(number(option, value, 1, 100000));
        else if (option == "--outliers")
            spec.outliers_per_sku = static_cast<int>(number(option, value, 0, 1000));
        else if (option == "--verify-share")
            spec.verify_share = number(option, value, 0, 1);
        else if (option == "--boot-hosts-per-sku")
            spec.boot_hosts_per_sku = static_cast<int>(number(option, value, 0, 1000000));
        else if (option == "--fit-once")
            spec.fit_every_host = number(option, value, 0, 1) == 0;
        else if (option != "--out" && option != "--compact")
            kUsage.fail("unknown option " + option);
    }
    const std::filesystem::path out = given["--out"];
    try {
        std::filesystem::create_directories(out);
        const int indent =
            given.contains("--compact") && number("--compact", given["--compact"], 0, 1) == 1 ? -1
                                                                                              : 2;
        std::size_t written = 0, boots = 0;
        std::optional<std::ofstream> boot_file;
        if (spec.boot_hosts_per_sku > 0)
            boot_file.emplace(out / "boots.jsonl");
        const auto fleet = hugetune::test::generate_fleet(
            spec,
            [&](const std::string& host, const nlohmann::json& report) {
                // A plain write: a test's own directory, and a fleet of 100,000 hosts would spend
                // minutes on an fsync each.
                std::ofstream file(out / (host + ".json"));
                file << report.dump(indent) << "\n";
                if (!file)
                    throw std::runtime_error("cannot write " + (out / (host + ".json")).string());
                ++written;
            },
            [&](const std::string& record) {
                *boot_file << record << "\n";
                ++boots;
            });
        if (boot_file && !(boot_file->flush()))
            throw std::runtime_error("cannot write " + (out / "boots.jsonl").string());
        hugetune::write_file_atomically(out / "truth.json", fleet.truth_json().dump(2) + "\n");
        std::cerr << "gen-fleet: wrote " << written << " reports"
                  << (boot_file ? ", " + std::to_string(boots) + " boot records" : std::string())
                  << " and truth.json to " << out.string() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "gen-fleet: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
