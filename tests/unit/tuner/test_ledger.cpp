#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/boot/config_file.hpp"
#include "tuner/boot/file_changes.hpp"
#include "tuner/boot/ledger.hpp"
#include "tuner/boot/report_input.hpp"

using namespace hugetune::boot;

TEST_CASE("base64 round trip of every byte value") {
    std::string all;
    for (int i = 0; i < 256; ++i)
        all.push_back(static_cast<char>(i));
    for (std::size_t n : {0, 1, 2, 3, 4, 255, 256}) {
        auto s = all.substr(0, n);
        CHECK(base64_decode(base64_encode(s)) == std::optional<std::string>(s));
    }
    CHECK(base64_encode("foobar") == "Zm9vYmFy");
    CHECK(base64_encode("fo") == "Zm8=");
    CHECK(!base64_decode("Zm8"));
    CHECK(!base64_decode("Z=8="));
}

TEST_CASE("ledger JSON round trip keeps non-UTF-8 bytes") {
    Ledger l;
    l.applied_at = "2026-01-02T03:04:05Z";
    l.value = "32";
    l.bootloader = "grubby";
    l.files.push_back({"/etc/default/grub", FileKind::grub, "/etc/default/grub.hugetune-x.bak",
                       "A=\xe9\n", "B\n", std::nullopt});
    l.files.push_back(
        {"/etc/kernel/cmdline", FileKind::kernel_cmdline, "", "x", "y", std::string("16")});
    l.bls_entries.push_back({"/boot/loader/entries/a.conf", "/vmlinuz-a", std::string("8")});
    auto back = ledger_from_json(ledger_to_json(l), "test");
    REQUIRE(back.files.size() == 2);
    CHECK(back.files[0].original == "A=\xe9\n");
    CHECK(back.files[1].kind == FileKind::kernel_cmdline);
    CHECK(back.files[1].previous_value == std::optional<std::string>("16"));
    CHECK(!back.files[0].previous_value);
    CHECK(back.bls_entries.at(0).kernel == "/vmlinuz-a");
    CHECK_THROWS_AS(ledger_from_json(nlohmann::json::object(), "test"), hugetune::Error);
}

TEST_CASE("ledger version 2: boot entries and forced reasons round trip; version 1 still read") {
    Ledger l;
    l.applied_at = "2026-01-02T03:04:05Z";
    l.value = "8";
    l.bootloader = "kernel-cmdline";
    l.files.push_back(
        {"/efi/loader/entries/a-6.15.conf", FileKind::boot_entry, "", "o", "a", std::string("4")});
    l.forced = {"the report warns [low_confidence]: only 60% agree"};
    auto back = ledger_from_json(ledger_to_json(l), "test");
    REQUIRE(back.files.size() == 1);
    CHECK(back.files[0].kind == FileKind::boot_entry);
    CHECK(back.forced == l.forced);

    const std::string v1 = R"({"schema_version": 1, "applied_at": "2025-01-01T00:00:00Z",
        "hugepage_alloc_threads": "16", "bootloader": "grub", "bls_entries": [],
        "files": [{"path": "/etc/default/grub", "kind": "grub", "backup": "/etc/default/grub.hugetune-20250101T000000Z.bak",
                   "original_base64": "QQ==", "applied_base64": "Qg==", "previous_value": null}]})";
    auto old = ledger_from_json(nlohmann::json::parse(v1), "test");
    CHECK(old.files.at(0).kind == FileKind::grub);
    CHECK(old.files.at(0).original == "A");
    CHECK(old.forced.empty());

    std::string unknown_kind = v1;
    unknown_kind.replace(unknown_kind.find(R"("kind": "grub")"), 14, R"("kind": "lilo")");
    CHECK_THROWS_WITH_AS(ledger_from_json(nlohmann::json::parse(unknown_kind), "test"),
                         "files[0].kind: unknown file kind 'lilo'; restore the files from their "
                         ".hugetune-*.bak backups by hand",
                         hugetune::model::InputError);
    std::string future = v1;
    future.replace(future.find("\"schema_version\": 1"), 19, "\"schema_version\": 5");
    CHECK_THROWS_AS(ledger_from_json(nlohmann::json::parse(future), "test"),
                    hugetune::model::InputError);
}

TEST_CASE("a ledger whose applied value is not a thread count is refused") {
    Ledger l;
    l.applied_at = "2026-01-02T03:04:05Z";
    l.bootloader = "grub";
    for (const char* bad : {"2 init=/bin/sh", "0", "0x10", "\x1b[2J"}) {
        l.value = bad;
        CAPTURE(l.value);
        CHECK_THROWS_WITH_AS(ledger_from_json(ledger_to_json(l), "test"),
                             doctest::Contains("is not a thread count"), hugetune::RuntimeError);
    }
}

TEST_CASE("a ledger names only the files hugetune edits, each with its own kind and backup") {
    CHECK(managed_file_kind("/etc/default/grub") == FileKind::grub);
    CHECK(managed_file_kind("/etc/default/grub.d/50-cloud.cfg") == FileKind::grub);
    CHECK_FALSE(managed_file_kind("/etc/default/grub.d/.hidden.cfg"));
    CHECK_FALSE(managed_file_kind("/etc/default/grub.d/50-cloud.txt"));
    CHECK(managed_file_kind("/etc/kernel/cmdline") == FileKind::kernel_cmdline);
    CHECK(managed_file_kind("/boot/efi/loader/entries/a-6.15.conf") == FileKind::boot_entry);
    CHECK_FALSE(managed_file_kind("/boot/loader/entries/../../../etc/shadow.conf"));
    CHECK_FALSE(managed_file_kind("/../../../../tmp/x/victim"));
    CHECK_FALSE(managed_file_kind("/etc/default/grub/../../shadow"));
    CHECK_FALSE(managed_file_kind("etc/default/grub"));

    Ledger l;
    l.applied_at = "2026-01-02T03:04:05Z";
    l.value = "8";
    l.bootloader = "grub";
    l.files.push_back({"/etc/default/grub", FileKind::grub,
                       "/etc/default/grub.hugetune-20260102T030405Z.bak", "a", "b", std::nullopt});
    CHECK_NOTHROW(ledger_from_json(ledger_to_json(l), "ledger"));
    const auto refused = [&](const std::string& needle) {
        CHECK_THROWS_WITH_AS(ledger_from_json(ledger_to_json(l), "ledger"),
                             doctest::Contains(needle.c_str()), hugetune::RuntimeError);
    };
    l.files[0].path = "/../../../../tmp/x/victim";
    refused("files names '/../../../../tmp/x/victim', not a boot configuration file");
    l.files[0].path = "/etc/kernel/cmdline";
    refused("/etc/kernel/cmdline is recorded as a grub file, and is a kernel-cmdline file");
    l.files[0].path = "/etc/default/grub";
    l.files[0].backup = "/tmp/grub.hugetune-x.bak";
    refused("the backup of /etc/default/grub is '/tmp/grub.hugetune-x.bak'");
    l.files[0].backup = "/etc/default/grub.d/../grub.hugetune-x.bak";
    refused("the backup of /etc/default/grub");
    l.files[0].backup = "";
    l.bls_entries.push_back({"/etc/shadow", "/vmlinuz", std::nullopt});
    refused("bls_entries names '/etc/shadow'");
}

TEST_CASE("a file's backups are found beside it by their names") {
    CHECK(is_backup_name("grub.hugetune-20260102T030405Z.bak", "grub"));
    CHECK(is_backup_name("grub.hugetune-20260102T030405Z-1.bak", "grub"));
    CHECK_FALSE(is_backup_name("grub.hugetune-.bak", "grub"));
    CHECK_FALSE(is_backup_name("grub.hugetune-20260102T030405Z.bak", "grub.d"));
    CHECK_FALSE(is_backup_name("grub.d.hugetune-20260102T030405Z.bak", "grub"));
    CHECK_FALSE(is_backup_name("grub.hugetune-20260102T030405Z.bak~", "grub"));
    CHECK_FALSE(is_backup_name("grub.ucf-dist", "grub"));

    const hugetune::test::ScratchDir dir;
    std::filesystem::create_directories(dir.path / "etc/default");
    for (const char* name :
         {"grub", "grub.hugetune-20260102T030405Z.bak", "grub.hugetune-20260101T000000Z.bak",
          "grub.ucf-dist", "cmdline.hugetune-20260102T030405Z.bak"})
        std::ofstream(dir.path / "etc/default" / name) << "x";
    const hugetune::KernelFs root(dir.path);
    CHECK(backups_beside(root, "/etc/default/grub") ==
          std::vector<std::string>{"/etc/default/grub.hugetune-20260101T000000Z.bak",
                                   "/etc/default/grub.hugetune-20260102T030405Z.bak"});
    CHECK(backups_beside(root, "/etc/kernel/cmdline").empty());
}

TEST_CASE("a ledger's pending edit round trips and names only the files it records") {
    Ledger l;
    l.applied_at = "2026-01-02T03:04:05Z";
    l.value = "8";
    l.bootloader = "kernel-cmdline";
    l.files.push_back({"/etc/kernel/cmdline", FileKind::kernel_cmdline,
                       "/etc/kernel/cmdline.hugetune-20260102T030405Z.bak", "a\n", "b\n",
                       std::nullopt});
    l.pending.push_back(
        {"/etc/kernel/cmdline", "/etc/kernel/cmdline.hugetune-20260102T030405Z.bak", "a\n", "b\n"});
    auto back = ledger_from_json(ledger_to_json(l), "ledger");
    REQUIRE(back.pending.size() == 1);
    CHECK(back.pending[0].from == "a\n");
    CHECK(back.pending[0].to == "b\n");
    CHECK_FALSE(ledger_to_json(Ledger{}).contains("pending"));
    l.pending[0].to = "c\n";
    CHECK_THROWS_WITH_AS(ledger_from_json(ledger_to_json(l), "ledger"),
                         doctest::Contains("pending names '/etc/kernel/cmdline'"),
                         hugetune::RuntimeError);
    l.pending[0] = {"/etc/kernel/cmdline", "/tmp/x.bak", "a\n", "b\n"};
    CHECK_THROWS_WITH_AS(ledger_from_json(ledger_to_json(l), "ledger"),
                         doctest::Contains("the backup of /etc/kernel/cmdline"),
                         hugetune::RuntimeError);
}

TEST_CASE("a forged pending edit is refused before any backup of its bytes is written") {
    Ledger l;
    l.applied_at = "2026-01-02T03:04:05Z";
    l.value = "8";
    l.bootloader = "kernel-cmdline";
    const std::string first_backup = "/etc/kernel/cmdline.hugetune-20260102T030405Z.bak";
    l.files.push_back({"/etc/kernel/cmdline", FileKind::kernel_cmdline, first_backup, "a\n", "b\n",
                       std::nullopt});
    // The backup the file records holds its bytes from before: a pending edit naming it must too.
    l.pending.push_back({"/etc/kernel/cmdline", first_backup, "forged\n", "b\n"});
    CHECK_THROWS_WITH_AS(ledger_from_json(ledger_to_json(l), "ledger"),
                         doctest::Contains("pending names '/etc/kernel/cmdline'"),
                         hugetune::RuntimeError);
    // A later apply's backup (another name) holds what that apply read, which the file itself
    // must hold: checked before anything is written.
    const std::string later_backup = "/etc/kernel/cmdline.hugetune-20260103T000000Z.bak";
    l.pending[0] = {"/etc/kernel/cmdline", later_backup, "forged\n", "b\n"};
    hugetune::test::ScratchDir dir;
    std::filesystem::create_directories(dir.path / "etc/kernel");
    std::filesystem::create_directories(dir.path / "var/lib/hugetune");
    std::ofstream(dir.path / "etc/kernel/cmdline") << "hand edit\n";
    std::ofstream(dir.path / "var/lib/hugetune/applied.json") << ledger_to_json(l).dump();
    const hugetune::KernelFs root(dir.path);
    std::ostringstream plan, err;
    hugetune::Effects effects(root.root_dir(), false, plan);
    CHECK_THROWS_WITH_AS(finish_interrupted_apply(root, effects, TargetOptions{}, err),
                         doctest::Contains("holds other bytes than"), hugetune::RuntimeError);
    CHECK_FALSE(std::filesystem::exists(dir.path / later_backup.substr(1)));
}
