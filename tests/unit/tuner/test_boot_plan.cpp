// The plans of apply and rollback on the fixture roots, read without writing: which files
// change to what, the rebuild commands, the ledger a second apply keeps, and the grub files
// as grub-mkconfig reads them.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/boot/apply.hpp"
#include "tuner/boot/boot_entries.hpp"
#include "tuner/boot/grub_config.hpp"
#include "tuner/boot/grub_files.hpp"
#include "tuner/boot/rollback.hpp"
#include "tuner/boot/shell_fragment.hpp"

using namespace hugetune;
using namespace hugetune::boot;

namespace {

std::string boot_file(const std::string& tree, const std::string& path) {
    std::ifstream in(test::fixture("boot/" + tree) / path.substr(1), std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

KernelFs boot_root(const std::string& tree) {
    return KernelFs(test::fixture("boot/" + tree));
}

ApplyRequest request_value(const std::string& value) {
    ApplyRequest r;
    r.value = value;
    return r;
}

bool mentions(const std::vector<std::string>& lines, const std::string& what) {
    for (const auto& l : lines)
        if (l.find(what) != std::string::npos)
            return true;
    return false;
}

const std::string kGrub = "/etc/default/grub";
const std::string kCmdline = "/etc/kernel/cmdline";

}  // namespace

TEST_CASE("plan_apply on Debian: the golden edit and update-grub, nothing written") {
    std::string before = boot_file("debian", kGrub);
    ApplyPlan plan = plan_apply(request_value("32"), boot_root("debian"));
    CHECK(plan.bootloader.kind == Bootloader::grub);
    REQUIRE(plan.change.files.size() == 1);
    const PlannedFile& grub = plan.change.files[0];
    CHECK(grub.file.target_path == kGrub);
    CHECK(grub.kind == FileKind::grub);
    CHECK(grub.file.text == before);
    CHECK(grub.new_text == boot_file("golden/debian", kGrub));
    CHECK_FALSE(grub.previous_value);
    CHECK(plan.change.commands == std::vector<Argv>{{"update-grub"}});
    REQUIRE_FALSE(plan.change.notes.empty());
    CHECK(plan.change.notes[0] == "boot loader: grub (/etc/default/grub)");
    CHECK(plan.next_cmdline.find("hugepage_alloc_threads=32") != std::string::npos);
    CHECK(boot_file("debian", kGrub) == before);
}

TEST_CASE("plan_apply on RHEL 9: grub and /etc/kernel/cmdline, one grubby command") {
    ApplyPlan plan = plan_apply(request_value("32"), boot_root("rhel9"));
    CHECK(plan.bootloader.kind == Bootloader::grubby);
    REQUIRE(plan.change.files.size() == 2);
    CHECK(plan.change.files[0].kind == FileKind::grub);
    CHECK(plan.change.files[0].new_text == boot_file("golden/rhel9", kGrub));
    CHECK(plan.change.files[1].kind == FileKind::kernel_cmdline);
    CHECK(plan.change.files[1].new_text == boot_file("golden/rhel9", kCmdline));
    for (const auto& f : plan.change.files)
        CHECK(f.previous_value == std::optional<std::string>("16"));
    CHECK(plan.change.commands ==
          std::vector<Argv>{{"grubby", "--update-kernel=ALL", "--args=hugepage_alloc_threads=32"}});
    CHECK(mentions(plan.change.notes, "kernels installed from now on take /etc/kernel/cmdline"));

    SUBCASE("the running 5.14 kernel ignores the parameter; a measured 6.16 does not") {
        CHECK(mentions(plan.change.warnings, "kernel 5.14.0-503.11.1.el9_5.x86_64 is older"));
        ApplyRequest measured = request_value("32");
        measured.kernel_release = "6.16.0";
        CHECK(plan_apply(measured, boot_root("rhel9")).change.warnings.empty());
    }
    SUBCASE("the value already configured: no file changes, the command stays") {
        ApplyPlan same = plan_apply(request_value("16"), boot_root("rhel9"));
        CHECK(same.change.files.empty());
        CHECK(same.change.commands.size() == 1);
    }
}

TEST_CASE("plan_apply on systemd-boot: /etc/kernel/cmdline and this system's entries") {
    ApplyPlan plan = plan_apply(request_value("32"), boot_root("systemd-boot"));
    CHECK(plan.bootloader.kind == Bootloader::kernel_cmdline);
    REQUIRE(plan.change.files.size() == 2);
    CHECK(plan.change.files[0].kind == FileKind::kernel_cmdline);
    CHECK(plan.change.files[0].new_text == boot_file("golden/systemd-boot", kCmdline));
    CHECK(plan.next_cmdline == plan.change.files[0].new_text);
    const std::string entry = "/boot/loader/entries/5a1f9c2e-6.15.2-arch1-1.conf";
    CHECK(plan.change.files[1].kind == FileKind::boot_entry);
    CHECK(plan.change.files[1].file.target_path == entry);
    CHECK(plan.change.files[1].new_text == boot_file("golden/systemd-boot", entry));
    CHECK(!plan.not_reached);
    CHECK(plan.change.commands.empty());
}

TEST_CASE("edit_boot_entry_text: one token over all options lines, every other byte kept") {
    const std::string two =
        "title x\noptions a hugepage_alloc_threads=4 b\noptions c\t"
        "hugepage_alloc_threads=2\r\nlinux /l\n";
    CHECK(edit_boot_entry_text("e", two, "8") ==
          "title x\noptions a hugepage_alloc_threads=8 b\noptions c\r\nlinux /l\n");
    CHECK(boot_entry_alloc_threads(two) == std::optional<std::string>("2"));
    CHECK(edit_boot_entry_text("e", two, std::nullopt) ==
          "title x\noptions a b\noptions c\r\nlinux /l\n");
    CHECK(edit_boot_entry_text("e", "options root=/dev/sda1\noptions quiet\n", "8") ==
          "options root=/dev/sda1\noptions quiet hugepage_alloc_threads=8\n");
    CHECK(edit_boot_entry_text("e", "title x\nlinux /l", "8") ==
          "title x\nlinux /l\noptions hugepage_alloc_threads=8\n");
    // systemd-boot skips a key without a value: the value goes on an options line of its own.
    CHECK(edit_boot_entry_text("e", "options\t\nlinux /l\n", "8") ==
          "options\t\nlinux /l\noptions hugepage_alloc_threads=8\n");
    CHECK(edit_boot_entry_text("e", "optionsfoo=1\n", std::nullopt) == "optionsfoo=1\n");
}

TEST_CASE("a chosen boot loader without its file is refused on the bootloader setting") {
    auto refusal = [](const std::string& tree, Bootloader chosen) -> SettingError {
        ApplyRequest r = request_value("32");
        r.target.bootloader = chosen;
        try {
            plan_apply(r, boot_root(tree));
        } catch (const SettingError& e) {
            return e;
        }
        FAIL("no SettingError");
        return SettingError("", "");
    };
    SettingError no_cmdline = refusal("debian", Bootloader::kernel_cmdline);
    CHECK(no_cmdline.setting == "bootloader");
    CHECK(std::string(no_cmdline.what()).starts_with("kernel-cmdline: "));
    CHECK(std::string(no_cmdline.what()).find("/etc/kernel/cmdline does not exist; create it") !=
          std::string::npos);
    SettingError no_grub = refusal("systemd-boot", Bootloader::grubby);
    CHECK(no_grub.setting == "bootloader");
    CHECK(std::string(no_grub.what()).starts_with("grubby: "));
    CHECK(std::string(no_grub.what()).ends_with("/etc/default/grub does not exist"));
}

TEST_CASE("ledger_after_apply: a second apply keeps the bytes from before the first") {
    ApplyRequest request = request_value("32");
    KernelFs root = boot_root("debian");
    ApplyPlan plan = plan_apply(request, root);
    const std::vector<std::string> backups{"/etc/default/grub.hugetune-1.bak"};

    Ledger first = ledger_after_apply(request, plan, backups, std::nullopt, root);
    CHECK(first.value == "32");
    CHECK(first.bootloader == "grub");
    REQUIRE(first.files.size() == 1);
    CHECK(first.files[0].path == kGrub);
    CHECK(first.files[0].backup == backups[0]);
    CHECK(first.files[0].original == plan.change.files[0].file.text);
    CHECK(first.files[0].applied == plan.change.files[0].new_text);
    CHECK(first.bls_entries.empty());

    Ledger previous;
    previous.files.push_back({kGrub, FileKind::grub, "/etc/default/grub.hugetune-0.bak", "ORIGINAL",
                              plan.change.files[0].file.text, std::string("8")});
    // Still as hugetune wrote it: kept. Changed since, or gone: dropped.
    previous.files.push_back({"/etc/debian_version", FileKind::kernel_cmdline, "b", "o",
                              boot_file("debian", "/etc/debian_version"), std::nullopt});
    previous.files.push_back({"/etc/os-release", FileKind::kernel_cmdline, "b", "o", "a", {}});
    Ledger second = ledger_after_apply(request, plan, backups, previous, root);
    REQUIRE(second.files.size() == 2);
    CHECK(second.files[0].backup == "/etc/default/grub.hugetune-0.bak");
    CHECK(second.files[0].original == "ORIGINAL");
    CHECK(second.files[0].previous_value == std::optional<std::string>("8"));
    CHECK(second.files[0].applied == plan.change.files[0].new_text);
    CHECK(second.files[1].path == "/etc/debian_version");
}

TEST_CASE("ledger_after_apply with grubby records each boot entry's value before") {
    ApplyRequest request = request_value("32");
    KernelFs root = boot_root("rhel9");
    ApplyPlan plan = plan_apply(request, root);
    Ledger ledger = ledger_after_apply(request, plan, {"b1", "b2"}, std::nullopt, root);
    REQUIRE(ledger.bls_entries.size() == 2);
    CHECK(ledger.bls_entries[0].kernel == "/vmlinuz-5.14.0-427.13.1.el9_4.x86_64");
    CHECK(ledger.bls_entries[0].previous_value == std::optional<std::string>("16"));
}

TEST_CASE("plan_rollback: original bytes, or the previous value in place after another edit") {
    KernelFs root = boot_root("debian");
    std::string now = boot_file("debian", kGrub);
    Ledger ledger;
    ledger.value = "32";
    ledger.bootloader = "grub";
    LedgerFile grub{kGrub, FileKind::grub,   "/etc/default/grub.hugetune-1.bak", "ORIGINAL\n",
                    now,   std::string("16")};

    SUBCASE("as hugetune wrote it: the original bytes back") {
        ledger.files = {grub};
        RollbackPlan plan = plan_rollback(ledger, root);
        REQUIRE(plan.change.files.size() == 1);
        CHECK_FALSE(plan.change.files[0].in_place);
        CHECK(plan.change.files[0].new_text == "ORIGINAL\n");
        CHECK(plan.change.warnings.empty());
        CHECK(plan.change.commands == std::vector<Argv>{{"update-grub"}});
        CHECK(plan.grub_previous_value == std::optional<std::string>("16"));
    }
    SUBCASE("edited since, its value too: refused, naming both values and the way forward") {
        grub.applied = "what hugetune wrote\n";
        ledger.files = {grub};
        CHECK_THROWS_WITH_AS(plan_rollback(ledger, root),
                             doctest::Contains("/etc/default/grub gives the kernel no "
                                               "hugepage_alloc_threads= now, not the 32 apply "
                                               "wrote"),
                             UsageError);
    }
    SUBCASE("edited since: with --force the previous value put back in place, their edit kept") {
        grub.applied = "what hugetune wrote\n";
        ledger.files = {grub};
        RollbackPlan plan = plan_rollback(ledger, root, true);
        CHECK(mentions(plan.change.warnings, "putting it back anyway (force)"));
        REQUIRE(plan.change.files.size() == 1);
        CHECK(plan.change.files[0].in_place);
        CHECK(plan.change.files[0].new_text.find(
                  "GRUB_CMDLINE_LINUX=\"hugepagesz=2M hugepages=65536 "
                  "hugepage_alloc_threads=16\"\n") != std::string::npos);
        CHECK(mentions(plan.change.warnings, "changed since hugetune applied"));
    }
    SUBCASE("edited since, with a previous value hugetune would not write: refused") {
        grub.applied = "what hugetune wrote\n";
        grub.previous_value = "16 init=/bin/sh";
        ledger.files = {grub};
        CHECK_THROWS_AS(plan_rollback(ledger, root, true), RuntimeError);
    }
    SUBCASE("already original, or gone: nothing to write") {
        grub.original = now;
        ledger.files = {grub, {"/etc/gone", FileKind::kernel_cmdline, "b", "o", "a", {}}};
        RollbackPlan plan = plan_rollback(ledger, root);
        CHECK(plan.change.files.empty());
        CHECK(mentions(plan.change.warnings, "/etc/gone no longer exists; not restored"));
    }
}

TEST_CASE("plan_rollback with grubby: one command when the entries agree, else one each") {
    KernelFs root = boot_root("rhel9");
    Ledger ledger;
    ledger.bootloader = "grubby";
    ledger.bls_entries = {{"/boot/loader/entries/a.conf", "/vmlinuz-a", std::string("16")},
                          {"/boot/loader/entries/b.conf", "/vmlinuz-b", std::string("16")}};
    CHECK(plan_rollback(ledger, root).change.commands ==
          std::vector<Argv>{{"grubby", "--update-kernel=ALL", "--args=hugepage_alloc_threads=16"}});
    ledger.bls_entries[0].previous_value.reset();
    CHECK(plan_rollback(ledger, root).change.commands ==
          std::vector<Argv>{
              {"grubby", "--update-kernel=/vmlinuz-a", "--remove-args=hugepage_alloc_threads"},
              {"grubby", "--update-kernel=/vmlinuz-b", "--args=hugepage_alloc_threads=16"}});
}

TEST_CASE("load_grub: the main file, then the drop-ins by name, none hidden") {
    GrubFiles grub = load_grub(boot_root("ubuntu-dropin"));
    std::vector<std::string> paths;
    for (const auto& f : grub.files)
        paths.push_back(f.target_path);
    CHECK(paths == std::vector<std::string>{kGrub, "/etc/default/grub.d/40-force-partuuid.cfg",
                                            "/etc/default/grub.d/50-cloudimg-settings.cfg",
                                            "/etc/default/grub.d/60-hugepages.cfg"});
    // .hidden.cfg sets the value to 99, but grub-mkconfig's grub.d/*.cfg never sources it.
    CHECK(effective_alloc_threads(grub.sources) != std::optional<std::string>("99"));
    CHECK(grub.editable == std::vector<bool>{true, true, true, true});
    REQUIRE(grub.sources.size() == paths.size());
    CHECK(grub.sources[3].path == paths[3]);
    CHECK(load_grub(boot_root("systemd-boot")).files.empty());
}

TEST_CASE("words sh leaves alone") {
    CHECK(is_plain_shell_word("--update-kernel=/vmlinuz-6.15.2"));
    CHECK(is_plain_shell_word("root=UUID=0b4c,ro:x@y%z+"));
    CHECK_FALSE(is_plain_shell_word(""));
    CHECK_FALSE(is_plain_shell_word("a b"));
    CHECK_FALSE(is_plain_shell_word("$X"));
    CHECK_FALSE(is_plain_shell_word("it's"));
    CHECK(format_command({"grub2-mkconfig", "-o", "/boot/my grub.cfg", "it's"}) ==
          "grub2-mkconfig -o '/boot/my grub.cfg' 'it'\\''s'");
}

TEST_CASE("tuned with another value on its boot command line is refused before any plan") {
    CHECK_THROWS_WITH_AS(plan_apply(request_value("2"), boot_root("rhel9-tuned")),
                         doctest::Contains("tuned-adm profile throughput-performance hugetune"),
                         UsageError);
}

TEST_CASE("plan_apply on ostree: no file of the tree, one rpm-ostree kargs command") {
    ApplyPlan plan = plan_apply(request_value("32"), boot_root("fedora-coreos"));
    CHECK(plan.change.files.empty());
    CHECK(plan.change.commands ==
          std::vector<Argv>{{"rpm-ostree", "kargs", "--append=hugepage_alloc_threads=32"}});
}
