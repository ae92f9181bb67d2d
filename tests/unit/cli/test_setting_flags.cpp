// Every setting name the engine can throw in a SettingError or name in a text (a Flag in a
// message, the caller's SettingWords) has a flag, and the error line reads as it did when the
// engine named the flag itself.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "cli/setting_flags.hpp"
#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"

using namespace hugetune;
using namespace hugetune::cli;
namespace fs = std::filesystem;

namespace {

// The string literals that open `SettingError("name", ...)` (or `{"name", ...}`), `Flag{"name"}`
// or `words("name")` in `text`.
std::set<std::string> thrown_setting_names(const std::string& text) {
    std::set<std::string> names;
    for (const std::string_view word : {"SettingError", "Flag{", "words("})
        for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
            auto next = at + word.size() - 1;
            if (word == "SettingError") {
                next = text.find_first_not_of(" \t\r\n", at + word.size());
                if (next == std::string::npos || (text[next] != '(' && text[next] != '{'))
                    continue;
            }
            next = text.find_first_not_of(" \t\r\n", next + 1);
            if (next == std::string::npos || text[next] != '"')
                continue;
            auto end = text.find('"', next + 1);
            names.insert(text.substr(next + 1, end - next - 1));
        }
    return names;
}

// Every setting name thrown by code outside cli/ (the engine, the model, the reports, the fleet
// database).
std::set<std::string> engine_setting_names() {
    std::set<std::string> names;
    const fs::path source = HUGETUNE_SOURCE_DIR;
    for (const char* folder : {"tuner", "model", "reports", "fleet_db"}) {
        for (const auto& entry : fs::recursive_directory_iterator(source / folder)) {
            const auto& path = entry.path();
            if (path.extension() != ".cpp" && path.extension() != ".hpp")
                continue;
            for (const auto& name : thrown_setting_names(hugetune::test::read_text(path)))
                names.insert(name);
        }
    }
    return names;
}

}  // namespace

TEST_CASE("every setting name the engine throws has a flag") {
    auto names = engine_setting_names();
    // The scan sees the sweep settings' own checks (tuner/sweep/settings.cpp), a Flag
    // (fleet_db/fleet_db.cpp) and the caller's words (tuner/sweep/plan.cpp), so it is reading.
    for (const char* known :
         {"threads_per_node", "repetitions", "phases", "max_memory_fraction", "db", "hvo_pass"})
        CHECK(names.count(known) == 1);
    for (const auto& name : names) {
        INFO("SettingError(\"" << name << "\", ...) is thrown, but no flag sets it");
        CHECK(setting_flag(name).has_value());
    }
}

TEST_CASE("the engine's setting names map to the flags users type") {
    const std::pair<const char*, const char*> expected[] = {
        {"threads_per_node", "--threads"},
        {"repetitions", "--repetitions"},
        {"budget_seconds", "--budget"},
        {"phases", "--phases"},
        {"max_memory_fraction", "--max-memory-fraction"},
        {"page_size", "--page-size"},
        {"sample_mib_per_node", "--sample-mib"},
        {"seed", "--seed"},
        {"bootloader", "--bootloader"},
        {"report", "--report"},
        {"value", "--value"},
        {"regenerate", "--no-regenerate"},
        {"boot_pool", "--boot-pages/--boot-gib"},
        {"root", "--root"},
        {"threads", "--threads"},
        {"pages", "--pages"},
        {"gib", "--gib"},
        {"kernel_image", "--kernel"},
        {"initrd", "--initrd"},
        {"state", "--state"},
        {"init_on_alloc", "--init-on-alloc"},
        {"hugetlb_free_vmemmap", "--hugetlb-free-vmemmap"},
        {"input", "--input"},
        {"boot_sweep", "--boot-sweep"},
        {"sku", "--sku"},
        {"min_hosts", "--min-hosts"},
        {"min_confidence", "--min-confidence"},
        {"accepted_warnings", "--accept-warning"},
        {"boot_pages", "--boot-pages"},
        {"db", "--db"},
        {"verification", "--verification"},
        {"out", "--out"},
        {"force_regenerate", "--regenerate"},
        {"dry_run", "--dry-run"},
        {"force", "--force"},
        {"log", "--log"},
        {"hvo_pass", "--no-hvo-pass"},
        {"nodes", "--nodes"},
        {"cpus", "--cpus"},
        {"placement", "--placement"},
        {"verbose", "--verbose"},
        {"boot_gib", "--boot-gib"},
        {"boot_record", "--boot-record"},
        {"plan_status", "--status"},
        {"plan_stop", "--stop"},
    };
    for (const auto& [setting, flag] : expected) {
        auto entry = setting_flag(setting);
        REQUIRE_MESSAGE(entry.has_value(), setting);
        CHECK(entry->flag == flag);
    }
    CHECK(setting_flags().size() == std::size(expected));
    std::set<std::string_view> settings;
    for (const auto& entry : setting_flags())
        CHECK(settings.insert(entry.setting).second);  // one row per setting
}

TEST_CASE("the error line reads as when the engine named the flag") {
    CHECK(setting_error_text(SettingError("max_memory_fraction", "must be above 0")) ==
          "--max-memory-fraction: must be above 0");
    CHECK(setting_error_text(
              SettingError("sample_mib_per_node", "1000 is not a positive multiple")) ==
          "--sample-mib: 1000 is not a positive multiple");
    // Messages of these settings start with the value refused.
    CHECK(setting_error_text(SettingError("report", "/tmp/r.json: no such file")) ==
          "--report /tmp/r.json: no such file");
    CHECK(setting_error_text(SettingError("bootloader",
                                          "kernel-cmdline: /etc/kernel/cmdline does "
                                          "not exist")) ==
          "--bootloader kernel-cmdline: /etc/kernel/cmdline does not exist");
    // A name without a flag is a bug the first test catches; the user still sees which setting.
    CHECK(setting_error_text(SettingError("no_such_setting", "refused")) ==
          "no_such_setting: refused");
}

TEST_CASE("a setting named inside a message reads as its flag, in an error of any kind") {
    const RuntimeError error("give " + Flag{"regenerate"} + " and rebuild, or add " +
                             Flag{"dry_run"});
    CHECK(error_text(error) == "give --no-regenerate and rebuild, or add --dry-run");
    // Without the command line the engine's names stand in for the flags.
    CHECK(std::string(error.what()) == "give regenerate and rebuild, or add dry_run");
    CHECK(error_text(SettingError("report", "x.json: bad; see " + Flag{"force"})) ==
          "--report x.json: bad; see --force");
    CHECK(error_text(hugetune::model::InputError(
              {"/x.json", "", true}, std::nullopt,
              "a: bad; write it with 'hugetune sweep " + Flag{"out"} + "'")) ==
          "/x.json: a: bad; write it with 'hugetune sweep --out'");
    CHECK(flag_words()("sample_mib_per_node") == "--sample-mib");
    CHECK(flag_words()("no_such_setting") == "no_such_setting");
}

TEST_CASE("a problem in a document reads with the flag, the file and the line that hold it") {
    using hugetune::model::InputError;
    CHECK(input_error_text(InputError({"/tmp/t.csv", "input"}, 3, "seconds 'x' is not a number")) ==
          "--input /tmp/t.csv, line 3: seconds 'x' is not a number");
    CHECK(input_error_text(InputError({"/tmp/r.json", "report"}, std::nullopt,
                                      "recommendation: missing; fix")) ==
          "--report /tmp/r.json: recommendation: missing; fix");
    CHECK(input_error_text(InputError({"", "sku"}, std::nullopt, "SKU key 'x': bad")) ==
          "--sku: SKU key 'x': bad");
    CHECK(input_error_text(InputError({"/var/state.json"}, std::nullopt, "phase: missing")) ==
          "/var/state.json: phase: missing");
    CHECK(input_error_text(InputError(hugetune::model::InputSource{"SKU k"}.part("run r of host h"),
                                      std::nullopt, "decision: bad")) ==
          "SKU k: run r of host h: decision: bad");
    CHECK(input_error_text(InputError({}, std::nullopt, "document: empty")) == "document: empty");
}
