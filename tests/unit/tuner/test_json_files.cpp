// Every JSON file hugetune reads goes through read_json_file, within one size and depth: its own
// ledger and state files as much as the documents a user names.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "model/input/fit_input.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/boot/ledger.hpp"
#include "tuner/boot_sweep/state.hpp"
#include "tuner/sweep/pool_state.hpp"
#include "tuner/system/json_file.hpp"

namespace fs = std::filesystem;
using hugetune::ExitCode;
using hugetune::model::kMaxInputBytes;
using hugetune::model::kMaxJsonDepth;

TEST_CASE("json files: hugetune's own files too large or too deep are refused in one line") {
    const hugetune::test::ScratchDir d;
    const hugetune::KernelFs root(d.path);
    struct OwnFile {
        fs::path path;
        std::function<void()> read;
        ExitCode code;  // a file hugetune keeps is a failure; a boot sweep's state a usage error
        std::string fix;
    };
    const OwnFile files[] = {
        {d.path / hugetune::boot::kLedgerPath.substr(1), [&] { hugetune::boot::read_ledger(root); },
         ExitCode::failure, "restore the files from their .hugetune-*.bak backups by hand"},
        {hugetune::state_file_path(d.path), [&] { hugetune::read_state_file(d.path); },
         ExitCode::failure, "inspect it, restore the pools by hand and delete it"},
        {d.path / "boot-sweep.json",
         [&] { hugetune::boot_sweep::read_state(root.root_dir(), "/boot-sweep.json"); },
         ExitCode::usage,
         "the state file is damaged; remove it (the machine's boot configuration was never "
         "changed)"},
    };
    const std::size_t depth = kMaxJsonDepth + 1;
    const std::pair<std::string, std::function<void(const fs::path&)>> beyond[] = {
        // One byte past the bound, sparse: nothing is written.
        {"larger than 64 MiB",
         [](const fs::path& file) {
             std::ofstream(file) << "{";
             fs::resize_file(file, kMaxInputBytes + 1);
         }},
        {"objects and arrays nested deeper than 64",
         [&](const fs::path& file) {
             std::ofstream(file) << std::string(depth, '[') + std::string(depth, ']');
         }},
    };
    for (const auto& file : files) {
        fs::create_directories(file.path.parent_path());
        for (const auto& [bound, write] : beyond) {
            CAPTURE(file.path);
            CAPTURE(bound);
            write(file.path);
            try {
                file.read();
                FAIL("accepted");
            } catch (const hugetune::Error& e) {
                const std::string message = e.what();
                CAPTURE(message);
                CHECK(e.code() == file.code);
                CHECK(message.find('\n') == std::string::npos);
                CHECK(message ==
                      file.path.string() + ": " + bound + ", the most hugetune reads; " + file.fix);
            }
        }
    }
}

TEST_CASE("json files: a document at the depth bound is read; the bound holds with a callback") {
    const hugetune::test::ScratchDir d;
    const fs::path file = d.path / "deep.json";
    std::ofstream(file) << std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
    CHECK(hugetune::read_json_file(file).is_array());
    const std::string deeper =
        std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
    CHECK_THROWS_WITH_AS(
        hugetune::parse_json_text(
            "deeper.json", deeper,
            [](int, nlohmann::json::parse_event_t, nlohmann::json&) { return true; }),
        "deeper.json: objects and arrays nested deeper than 64, the most hugetune reads; give a "
        "file written by hugetune",
        hugetune::UsageError);
}
