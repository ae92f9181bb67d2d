// Programs that own part of the kernel command line besides the files apply edits: tuned (its
// bootcmdline and grub's $tuned_params), grub's environment block, and ostree's deployments.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <functional>

#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/boot/apply.hpp"
#include "tuner/boot/grub_variables.hpp"
#include "tuner/boot/ostree.hpp"
#include "tuner/boot/rollback.hpp"
#include "tuner/boot/tuned.hpp"

using namespace hugetune;
using namespace hugetune::boot;

namespace {

KernelFs owner_root(const std::string& tree) {
    return KernelFs(test::fixture("boot/" + tree));
}

ApplyRequest owner_request(const std::string& value) {
    ApplyRequest r;
    r.value = value;
    return r;
}

std::string usage_error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

bool owner_text_has(const std::string& text, const std::string& what) {
    return text.find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("tuned: its profile and boot command line are read from the tree") {
    TunedState t = read_tuned(owner_root("rhel9-tuned"));
    CHECK(t.active_profiles == std::vector<std::string>{"throughput-performance"});
    CHECK(t.boot_cmdline == std::optional<std::string>("skew_tick=1 hugepage_alloc_threads=8"));
    CHECK(tuned_profile_command(t) ==
          Argv{"tuned-adm", "profile", "throughput-performance", "hugetune"});
    CHECK(tuned_reapply_command(t) == Argv{"tuned-adm", "profile", "throughput-performance"});
    CHECK_FALSE(read_tuned(owner_root("rhel9")).active());
}

TEST_CASE("tuned: another value is refused with the profile and command; the same one noted") {
    TunedState t = read_tuned(owner_root("rhel9-tuned"));
    std::string refused = usage_error_of([&] { check_tuned(t, "2"); });
    CHECK(
        refused.starts_with("/etc/tuned/bootcmdline: tuned puts hugepage_alloc_threads=8 on "
                            "the kernel command line"));
    CHECK(owner_text_has(refused,
                         "'cmdline_hugetune=+hugepage_alloc_threads=2', run: tuned-adm "
                         "profile throughput-performance hugetune, then run hugetune again"));
    CHECK(check_tuned(t, "8").notes.size() == 1);
    t.active_profiles.clear();
    CHECK(
        owner_text_has(usage_error_of([&] { check_tuned(t, "2"); }), "no tuned profile is active"));
    // plan_apply refuses it before anything else, so --dry-run does too.
    CHECK(owner_text_has(
        usage_error_of([] { plan_apply(owner_request("2"), owner_root("rhel9-tuned")); }),
        "/etc/tuned/bootcmdline: tuned puts hugepage_alloc_threads=8"));
}

TEST_CASE("grub variables: found in a command line, read from grubenv, refused or warned") {
    auto refs = grub_variable_refs("a=$x ${tuned_params} $ 5$ b$1 $?");
    REQUIRE(refs.size() == 4);
    CHECK(refs[0].name == "x");
    CHECK(refs[0].offset == 2);
    CHECK(refs[1].name == "tuned_params");
    CHECK(refs[2].name == "1");
    CHECK(refs[3].name == "?");

    BootVariables vars{read_grubenv(owner_root("rhel9-tuned")),
                       read_tuned(owner_root("rhel9-tuned"))};
    CHECK(vars.grubenv.path == "/boot/grub2/grubenv");
    CHECK(vars.grubenv.values.at("tuned_params") == "skew_tick=1 hugepage_alloc_threads=8");
    std::vector<std::string> warnings;
    CHECK(
        owner_text_has(usage_error_of([&] {
                           check_grub_variable({"tuned_params", 0}, "e.conf", vars, "2", warnings);
                       }),
                       "e.conf: $tuned_params expands to tuned_params from /boot/grub2/grubenv, "
                       "which holds hugepage_alloc_threads=8"));
    CHECK(owner_text_has(
        usage_error_of([&] {
            check_grub_variable({"kernelopts", 0}, "e.conf", vars, "2", warnings);
        }),
        "e.conf: $kernelopts is a grub variable that /boot/grub2/grubenv does not set"));
    vars.grubenv.values["kernelopts"] = "root=/dev/sda1 hugepage_alloc_threads=4 ro";
    CHECK(owner_text_has(usage_error_of([&] {
                             check_grub_variable({"kernelopts", 0}, "e.conf", vars, "2", warnings);
                         }),
                         "remove it there: grub2-editenv /boot/grub2/grubenv set "
                         "'kernelopts=root=/dev/sda1 ro'"));
    // tuned holding the value asked for: check_tuned's note says so, and no warning that it
    // holds none.
    vars.grubenv.values["tuned_params"] = "skew_tick=1 hugepage_alloc_threads=2";
    vars.tuned.boot_cmdline = "skew_tick=1 hugepage_alloc_threads=2";
    check_grub_variable({"tuned_params", 0}, "a.conf", vars, "2", warnings);
    CHECK(warnings.empty());
    vars.grubenv.values["tuned_params"] = "skew_tick=1";
    vars.tuned.boot_cmdline = "skew_tick=1";
    check_grub_variable({"tuned_params", 0}, "a.conf", vars, "2", warnings);
    check_grub_variable({"tuned_params", 0}, "b.conf", vars, "2", warnings);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].starts_with("tuned (profile throughput-performance) appends $tuned_params"));
}

TEST_CASE("ostree: the default deployment and the rpm-ostree kargs command for each state") {
    OstreeDeployment d = read_default_deployment(owner_root("fedora-coreos"));
    CHECK(d.entry == "/boot/loader/entries/ostree-2-fedora-coreos.conf");
    CHECK(d.values.empty());  // ostree-1, the older deployment, has one
    CHECK(ostree_kargs_command({}, std::string("2")) ==
          Argv{"rpm-ostree", "kargs", "--append=hugepage_alloc_threads=2"});
    CHECK(ostree_kargs_command({"4"}, std::string("2")) ==
          Argv{"rpm-ostree", "kargs", "--replace=hugepage_alloc_threads=2"});
    CHECK(ostree_kargs_command({"4"}, std::nullopt) ==
          Argv{"rpm-ostree", "kargs", "--delete=hugepage_alloc_threads=4"});
    CHECK_FALSE(ostree_kargs_command({"2"}, std::string("2")));
    CHECK_FALSE(ostree_kargs_command({}, std::nullopt));
    CHECK_THROWS_AS(ostree_kargs_command({"4", "8"}, std::string("2")), UsageError);
}

TEST_CASE("ostree: apply plans one command and no file; rollback plans its inverse") {
    ApplyPlan plan = plan_apply(owner_request("2"), owner_root("fedora-coreos"));
    CHECK(plan.bootloader.kind == Bootloader::ostree);
    CHECK(plan.change.files.empty());
    CHECK(plan.change.commands ==
          std::vector<Argv>{{"rpm-ostree", "kargs", "--append=hugepage_alloc_threads=2"}});
    REQUIRE(plan.ostree_deployment);
    CHECK_FALSE(plan.ostree_deployment->previous_value);
    CHECK(owner_text_has(plan.next_cmdline, "hugepages=65536 hugepage_alloc_threads=2"));

    Ledger ledger =
        ledger_after_apply(owner_request("2"), plan, {}, std::nullopt, owner_root("fedora-coreos"));
    CHECK(ledger.bootloader == "ostree");
    REQUIRE(ledger.bls_entries.size() == 1);
    auto back = ledger_from_json(ledger_to_json(ledger), "test");
    RollbackPlan undo = plan_rollback(back, owner_root("fedora-coreos"));
    CHECK(undo.change.files.empty());
    CHECK(undo.change.commands ==
          std::vector<Argv>{{"rpm-ostree", "kargs", "--delete=hugepage_alloc_threads=2"}});

    ApplyRequest chosen = owner_request("2");
    chosen.target.bootloader = Bootloader::grub;
    CHECK_THROWS_AS(plan_apply(chosen, owner_root("fedora-coreos")), SettingError);
}
