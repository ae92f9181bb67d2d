// The boot sweep's plan, state file and state machine, driven through a fake machine that boots
// whatever command line was last loaded and logs the allocation line a real kernel would.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/boot_sweep/host.hpp"
#include "tuner/boot_sweep/plan.hpp"
#include "tuner/boot_sweep/result.hpp"
#include "tuner/boot_sweep/state.hpp"
#include "tuner/boot_sweep/steps.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/json_file.hpp"

namespace fs = std::filesystem;
namespace bs = hugetune::boot_sweep;
using hugetune::ExitCode;

namespace {

// This machine's tree, in which the tests' scratch files are named by their own paths.
const hugetune::RootDir& this_machine() {
    static const hugetune::RootDir root = hugetune::RootDir::open("/");
    return root;
}

const std::string kOriginal = "BOOT_IMAGE=/vmlinuz-6.15.3 root=/dev/sda1 ro quiet";

bs::MachineFacts facts() {
    bs::MachineFacts f;
    f.kernel_release = "6.15.3";
    f.online_cpus = 8;
    f.nodes = 1;
    f.memory_total_bytes = 16ULL << 30;
    f.kexec_found = true;
    f.kernel_image = "/boot/vmlinuz-6.15.3";
    f.initrd = "/boot/initrd.img-6.15.3";
    f.original_cmdline = kOriginal;
    return f;
}

bs::Request request(std::vector<int> threads, int repetitions = 1) {
    bs::Request r;
    r.threads = std::move(threads);
    r.pages = 1024;
    r.repetitions = repetitions;
    return r;
}

// The allocation takes 800 ms over the thread count, plus 100 ms.
std::uint64_t fake_ms(std::uint64_t threads) {
    return 100 + 800 / threads;
}

std::vector<std::string> boot_log(std::optional<std::uint64_t> threads, std::uint64_t pages) {
    std::vector<std::string> log = {"Linux version 6.15.3 (builder@example) #1 SMP"};
    if (threads)
        log.push_back("HugeTLB: allocation took " + std::to_string(fake_ms(*threads)) +
                      "ms with hugepage_allocation_threads=" + std::to_string(*threads));
    log.push_back("HugeTLB: registered 2.00 MiB page size, pre-allocated " + std::to_string(pages) +
                  " pages");
    return log;
}

std::optional<std::uint64_t> threads_on(const std::string& cmdline) {
    const auto at = cmdline.find("hugepage_alloc_threads=");
    if (at == std::string::npos)
        return std::nullopt;
    return std::stoull(cmdline.substr(at + 23));
}

class FakeHost : public bs::Host {
  public:
    bs::BootFacts boot{"boot-0", kOriginal, "6.15.3", boot_log(std::nullopt, 0), "t0", false, 4096};
    std::vector<std::string> calls;
    std::optional<std::string> loaded;
    bool fail_load = false;
    int boots = 0;
    fs::path state_file;

    bool fail_write = false;
    // The kernel's settings without a parameter for them; nothing for HVO: no sysctl.
    bool default_init_on_alloc = true;
    std::optional<bool> default_hvo = false;
    bool honour_settings = true;

    bs::BootFacts this_boot() const override { return boot; }
    void write_file(const fs::path& path, const std::string& bytes) override {
        if (fail_write)
            throw hugetune::UsageError("--state: " + path.string() + " is a symbolic link");
        hugetune::write_file_atomically(path, bytes);
    }
    void load_kexec(const bs::KexecImage& image, const std::string& cmdline) override {
        calls.push_back("load " + cmdline);
        CHECK(image.kernel == "/boot/vmlinuz-6.15.3");
        if (fail_load)
            throw hugetune::RuntimeError("'kexec -l' exited 1: bad image");
        loaded = cmdline;
    }
    // The power may go at any moment after this starts: the state on disk must already say that
    // the step it boots is attempted (or that the sweep is over when it goes back).
    void exec_kexec() override {
        calls.push_back("exec");
        if (state_file.empty())
            return;
        const auto saved = bs::read_state(this_machine(), state_file.string());
        REQUIRE(saved);
        bool marked = !saved->in_progress() || saved->phase == bs::Phase::finishing;
        for (const auto& step : saved->steps)
            marked = marked || (step.attempted && !step.recorded && step.step.cmdline == *loaded);
        CHECK_MESSAGE(marked, "kexec started before the state marked " << *loaded);
    }
    void reboot() override { calls.push_back("reboot"); }
    void enable_unit() override { calls.push_back("enable"); }
    void disable_unit() override { calls.push_back("disable"); }

    // A new boot with `cmdline`; its log has the line a kernel honouring the command line
    // writes, unless `logged_threads` says otherwise (nullopt inside: no line).
    void boot_into(const std::string& cmdline,
                   std::optional<std::optional<std::uint64_t>> logged_threads = std::nullopt) {
        ++boots;
        boot.boot_id = "boot-" + std::to_string(boots);
        boot.cmdline = cmdline;
        boot.now = "t" + std::to_string(boots);
        const auto threads = logged_threads ? *logged_threads : threads_on(cmdline);
        boot.log = boot_log(threads, threads ? 1024 : 0);
        // What a kernel logs and shows of init_on_alloc= and hugetlb_free_vmemmap=, unless it
        // is one that ignores them.
        bool init_on_alloc = default_init_on_alloc;
        if (honour_settings && cmdline.find("init_on_alloc=0") != std::string::npos)
            init_on_alloc = false;
        if (honour_settings && cmdline.find("init_on_alloc=1") != std::string::npos)
            init_on_alloc = true;
        boot.log.insert(boot.log.begin() + 1,
                        std::string("mem auto-init: stack:all(zero), heap alloc:") +
                            (init_on_alloc ? "on" : "off") + ", heap free:off");
        boot.hvo = default_hvo;
        if (default_hvo && honour_settings &&
            cmdline.find("hugetlb_free_vmemmap=on") != std::string::npos)
            boot.hvo = true;
        if (default_hvo && honour_settings &&
            cmdline.find("hugetlb_free_vmemmap=off") != std::string::npos)
            boot.hvo = false;
        calls.clear();
    }
    void boot_loaded() { boot_into(*loaded); }
};

struct Dir : hugetune::test::ScratchDir {
    fs::path state() const { return path / "boot-sweep.json"; }
};

bs::State load_state(const fs::path& path) {
    auto s = bs::read_state(this_machine(), path.string());
    REQUIRE(s);
    return *s;
}

bs::State load(const Dir& d) {
    return load_state(d.state());
}

void run_continue(FakeHost& host, const Dir& d) {
    bs::carry_out(bs::plan_continue(load(d), host.this_boot()), host, d.state());
}

void start(FakeHost& host, const Dir& d, const bs::Plan& plan,
           bs::Finish finish = bs::Finish::kexec) {
    host.state_file = d.state();
    bs::carry_out(bs::plan_start(plan, finish, true, host.this_boot()), host, d.state());
}

int code_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const hugetune::Error& e) {
        return static_cast<int>(e.code());
    }
    return 0;
}

}  // namespace

TEST_CASE("a step's command line replaces the pool parameters and keeps everything else") {
    const std::string original =
        "root=/dev/sda1 hugepages=512 quiet foo=\"a b\" hugepagesz=1G hugepages=4 "
        "default_hugepagesz=1G hugepage_alloc_threads=3 init_on_alloc=1 -- single";
    CHECK(bs::step_cmdline(original, 2048, 1024, 8) ==
          "root=/dev/sda1 quiet foo=\"a b\" init_on_alloc=1 hugepagesz=2M hugepages=1024 "
          "hugepage_alloc_threads=8 -- single");
    CHECK(bs::step_cmdline(original, 2048, 1024, 8, {false, std::nullopt}) ==
          "root=/dev/sda1 quiet foo=\"a b\" hugepagesz=2M hugepages=1024 "
          "hugepage_alloc_threads=8 init_on_alloc=0 -- single");
    // The kernel reads '-' as '_' in a name: a dashed spelling is the same parameter, replaced.
    CHECK(bs::step_cmdline("root=/dev/sda1 hugepage-alloc-threads=3 -- hugepages=1", 2048, 64, 2) ==
          "root=/dev/sda1 hugepagesz=2M hugepages=64 hugepage_alloc_threads=2 -- hugepages=1");
}

TEST_CASE("default thread counts are totals: per node times the nodes, capped, plus default") {
    CHECK(bs::default_thread_totals(2, 24) == std::vector<int>{2, 4, 6, 8, 16, 24});
    CHECK(bs::default_thread_totals(1, 4) == std::vector<int>{1, 2, 4});
}

TEST_CASE("the plan interleaves repetitions and uses the command line's pool by default") {
    auto f = facts();
    f.original_cmdline = kOriginal + " hugepages=2048";
    bs::Request r;
    r.threads = {4, 2, 4};
    r.repetitions = 2;
    const bs::Plan plan = bs::make_plan(f, r);
    CHECK(plan.pages == 2048);
    CHECK(plan.threads == std::vector<int>{2, 4});
    REQUIRE(plan.steps.size() == 4);
    CHECK(plan.steps[1].threads == 4);
    CHECK(plan.steps[2].threads == 2);
    CHECK(plan.steps[2].repetition == 2);
    CHECK(plan.steps[0].cmdline == kOriginal +
                                       " hugepagesz=2M hugepages=2048 "
                                       "hugepage_alloc_threads=2");
    CHECK(plan.estimated_seconds > 4 * bs::kBootOverheadSeconds);
}

TEST_CASE("plan refusals: old kernel, no kexec, no image, pool too large, gigantic, bad flags") {
    auto old = facts();
    old.kernel_release = "6.14.2";
    CHECK(code_of([&] { bs::make_plan(old, request({1})); }) == int(ExitCode::unsupported));
    auto no_kexec = facts();
    no_kexec.kexec_found = false;
    CHECK(code_of([&] { bs::make_plan(no_kexec, request({1})); }) == int(ExitCode::unsupported));
    // Each step is an unsigned kexec_load(): lockdown from integrity on, or kexec switched off.
    for (const auto mode :
         {hugetune::LockdownMode::integrity, hugetune::LockdownMode::confidentiality}) {
        auto locked = facts();
        locked.lockdown = mode;
        CHECK(code_of([&] { bs::make_plan(locked, request({1})); }) == int(ExitCode::unsupported));
    }
    auto open_lock = facts();
    open_lock.lockdown = hugetune::LockdownMode::none;
    CHECK_NOTHROW(bs::make_plan(open_lock, request({1})));
    auto switched_off = facts();
    switched_off.kexec_load_disabled = hugetune::KexecSysctl{"1", 1};
    CHECK(code_of([&] { bs::make_plan(switched_off, request({1})); }) ==
          int(ExitCode::unsupported));
    // A switch hugetune cannot read is not taken as allowed.
    auto unreadable = facts();
    unreadable.kexec_load_disabled = hugetune::KexecSysctl{"maybe", std::nullopt};
    CHECK(code_of([&] { bs::make_plan(unreadable, request({1})); }) == int(ExitCode::unsupported));
    auto allowed = facts();
    allowed.kexec_load_disabled = hugetune::KexecSysctl{"0", 0};
    allowed.kexec_load_limit_reboot = hugetune::KexecSysctl{"-1", -1};
    CHECK_NOTHROW(bs::make_plan(allowed, request({1})));
    // kexec_load_limit_reboot: 0 loads left, or fewer than the steps, refuses; enough passes.
    const std::size_t steps = bs::make_plan(allowed, request({1})).steps.size();
    for (std::int64_t left : {std::int64_t{0}, static_cast<std::int64_t>(steps) - 1}) {
        auto limited = allowed;
        limited.kexec_load_limit_reboot = hugetune::KexecSysctl{std::to_string(left), left};
        CHECK(code_of([&] { bs::make_plan(limited, request({1})); }) == int(ExitCode::unsupported));
    }
    auto enough = allowed;
    enough.kexec_load_limit_reboot =
        hugetune::KexecSysctl{std::to_string(steps), static_cast<std::int64_t>(steps)};
    CHECK_NOTHROW(bs::make_plan(enough, request({1})));
    auto no_image = facts();
    no_image.kernel_image.reset();
    CHECK_THROWS_AS(bs::make_plan(no_image, request({1})), hugetune::SettingError);
    auto no_initrd = facts();
    no_initrd.initrd.reset();
    CHECK_THROWS_AS(bs::make_plan(no_initrd, request({1})), hugetune::SettingError);
    auto without = request({1});
    without.no_initrd = true;
    CHECK_FALSE(bs::make_plan(no_initrd, without).initrd);

    auto big = request({1});
    big.pages = 7000;  // 13.7 GiB of 16 GiB: over three quarters
    CHECK(code_of([&] { bs::make_plan(facts(), big); }) == int(ExitCode::failure));
    big.pages = 6000;
    CHECK(code_of([&] { bs::make_plan(facts(), big); }) == 0);

    auto gigantic = request({1});
    gigantic.page_size_kb = 1048576;
    try {
        bs::make_plan(facts(), gigantic);
        FAIL("a gigantic page size was planned");
    } catch (const hugetune::SettingError& e) {
        CHECK(e.setting == "page_size");
    }
    // arm64 with 64 KiB pages: 512M is the default size and below the largest buddy block.
    auto arm64 = facts();
    arm64.memory_total_bytes = 256ULL << 30;
    arm64.page_sizes = {512 * 1024, 512 * 1024};
    auto pool_512m = request({1});
    pool_512m.pages = 16;
    CHECK(bs::make_plan(arm64, pool_512m).page_size_kb == 512 * 1024);
    CHECK(bs::make_plan(facts(), pool_512m).page_size_kb == 2048);  // x86-64's default
    pool_512m.page_size_kb = 16 * 1024 * 1024;
    CHECK_THROWS_AS(bs::make_plan(arm64, pool_512m), hugetune::SettingError);
    auto setting_of = [](const bs::Request& r, const bs::MachineFacts& f = facts()) {
        try {
            bs::make_plan(f, r);
        } catch (const hugetune::SettingError& e) {
            return e.setting;
        }
        return std::string("accepted");
    };
    CHECK(setting_of(request({9})) == "threads");  // more than the 8 CPUs
    CHECK(setting_of(request({1}, 0)) == "repetitions");
    auto both = request({1});
    both.gib = 1;
    CHECK(setting_of(both) == "pages");
    bs::Request no_pool;
    no_pool.threads = {1};
    CHECK(setting_of(no_pool) == "pages");  // the original line asks for no pool
}

TEST_CASE("a normal run: each step booted once, the unit disabled, back to the original") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2, 4}));
    start(host, d, plan);
    CHECK(host.calls ==
          std::vector<std::string>{"load " + plan.steps[0].cmdline, "enable", "exec"});
    CHECK(load(d).steps[0].attempted->boot_id == "boot-0");
    std::set<std::string> booted;
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(booted.insert(*host.loaded).second);
        host.boot_loaded();
        CHECK(host.boot.cmdline == plan.steps[i].cmdline);
        run_continue(host, d);
        const bs::State s = load(d);
        REQUIRE(s.steps[i].recorded);
        CHECK(s.steps[i].recorded->milliseconds == fake_ms(plan.steps[i].threads));
        CHECK(s.steps[i].recorded->boot_id == host.boot.boot_id);
        if (i < 2)
            CHECK(host.calls ==
                  std::vector<std::string>{"load " + plan.steps[i + 1].cmdline, "exec"});
    }
    CHECK(host.calls ==
          std::vector<std::string>{"load " + plan.original_cmdline, "disable", "exec"});
    CHECK(load(d).phase == bs::Phase::finishing);
    const auto result = hugetune::read_json_file(bs::result_path(d.state()));
    CHECK(result["format"] == "hugetune-boot-sweep");
    CHECK(result["complete"] == true);
    CHECK(result["best"]["threads"] == 4);
    CHECK(result["best"]["cmdline"] == "hugepage_alloc_threads=4");
    CHECK(result["by_threads"][0]["median_ms"] == 900.0);

    host.boot_loaded();
    run_continue(host, d);
    CHECK(load(d).phase == bs::Phase::done);
    CHECK(host.calls.empty());
    run_continue(host, d);  // any later boot: nothing to do
    CHECK(host.calls.empty());
}

TEST_CASE("--finish reboot leaves the last step by a normal reboot") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({2}));
    start(host, d, plan, bs::Finish::reboot);
    host.boot_loaded();
    run_continue(host, d);
    CHECK(host.calls == std::vector<std::string>{"disable", "reboot"});
}

TEST_CASE("the step's own boot that cannot be recorded ends the sweep and returns by kexec") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2, 4}));
    start(host, d, plan);
    std::string reason_part;

    SUBCASE("no allocation line in the log") {
        host.boot_into(plan.steps[0].cmdline, std::optional<std::uint64_t>{});
        reason_part = "no 'HugeTLB: allocation took' line";
    }
    SUBCASE("the kernel logged another thread count") {
        host.boot_into(plan.steps[0].cmdline, std::optional<std::uint64_t>{2});
        reason_part = "the kernel used 2 threads, not 1";
    }
    run_continue(host, d);
    const bs::State s = load(d);
    CHECK(s.phase == bs::Phase::aborted);
    CHECK(s.abort_reason.find(reason_part) != std::string::npos);
    CHECK_FALSE(s.steps[0].recorded);
    CHECK_FALSE(s.steps[1].attempted);
    CHECK(host.calls ==
          std::vector<std::string>{"load " + plan.original_cmdline, "disable", "exec"});
    CHECK(fs::exists(bs::result_path(d.state())));

    host.boot_loaded();
    run_continue(host, d);
    CHECK(host.calls.empty());
    CHECK(load(d).phase == bs::Phase::aborted);
}

TEST_CASE("a boot that is not the step's ends the sweep where it is: no kexec, no reboot") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2, 4}));
    start(host, d, plan);
    std::string reason_part;

    SUBCASE("another step's command line") {
        host.boot_into(plan.steps[1].cmdline);
        reason_part = "command line is not step 1";
    }
    SUBCASE("the original command line plus a parameter a person added") {
        host.boot_into(kOriginal + " nomodeset");
        reason_part = "command line is not step 1";
    }
    SUBCASE("another kernel, with its own command line") {
        host.boot_into("BOOT_IMAGE=/vmlinuz-6.12.0-old root=/dev/sda1 ro");
        host.boot.kernel_release = "6.12.0-old";
        reason_part = "command line is not step 1";
    }
    SUBCASE("another kernel booted with the step's command line") {
        host.boot_into(plan.steps[0].cmdline);
        host.boot.kernel_release = "6.16.0";
        reason_part = "this boot runs kernel 6.16.0, the sweep measures 6.15.3";
    }
    SUBCASE("a human took over at the last step too") {
        host.boot_loaded();
        run_continue(host, d);
        host.boot_loaded();
        run_continue(host, d);
        host.boot_into(kOriginal + " single");
        reason_part = "command line is not step 3";
    }
    run_continue(host, d);
    const bs::State s = load(d);
    CHECK(s.phase == bs::Phase::aborted);
    CHECK(s.abort_reason.find(reason_part) != std::string::npos);
    CHECK(host.calls == std::vector<std::string>{"disable"});
    CHECK(fs::exists(bs::result_path(d.state())));

    run_continue(host, d);  // and at every later boot, nothing
    CHECK(host.calls == std::vector<std::string>{"disable"});
}

TEST_CASE("a power cut between the mark and the kexec: the step is never tried again") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2}));
    // The state says step 1 attempted, then the power goes before the kexec starts it.
    bs::carry_out(bs::plan_start(plan, bs::Finish::kexec, true, host.this_boot()), host, d.state());
    host.boot_into(kOriginal);  // the firmware's normal boot
    run_continue(host, d);
    const bs::State s = load(d);
    CHECK(s.phase == bs::Phase::aborted);
    CHECK(s.abort_reason.find("original command line") != std::string::npos);
    CHECK(s.steps[0].attempted);
    CHECK_FALSE(s.steps[0].recorded);
    CHECK(host.calls == std::vector<std::string>{"disable"});  // already on the original
    run_continue(host, d);
    CHECK(host.calls == std::vector<std::string>{"disable"});
}

TEST_CASE("a step in flight found again by the boot that left for it is not retried") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2}));
    start(host, d, plan);
    host.boot_loaded();
    run_continue(host, d);  // records step 1, marks step 2 from this boot
    host.calls.clear();
    run_continue(host, d);  // the kexec into step 2 did not happen; continue runs again
    const bs::State s = load(d);
    CHECK(s.phase == bs::Phase::aborted);
    CHECK(s.abort_reason.find("did not happen") != std::string::npos);
    CHECK(host.calls == std::vector<std::string>{"disable"});  // left as it is
}

TEST_CASE("abort: requested in a step's boot, it stops after recording that boot") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2, 4}));
    start(host, d, plan);
    host.boot_loaded();
    bs::carry_out(bs::plan_abort(load(d), host.this_boot()), host, d.state());
    CHECK(host.calls.empty());
    CHECK(load(d).abort_requested);
    run_continue(host, d);
    const bs::State s = load(d);
    CHECK(s.steps[0].recorded);
    CHECK_FALSE(s.steps[1].attempted);
    CHECK(s.phase == bs::Phase::aborted);
    CHECK(s.abort_reason == "abort requested");
    CHECK(host.calls ==
          std::vector<std::string>{"load " + plan.original_cmdline, "disable", "exec"});
    CHECK_THROWS_AS(bs::plan_abort(load(d), host.this_boot()), hugetune::RuntimeError);
}

TEST_CASE("abort on the original command line finishes at once") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2}));
    start(host, d, plan);
    host.boot_into(kOriginal);
    bs::carry_out(bs::plan_abort(load(d), host.this_boot()), host, d.state());
    CHECK(load(d).phase == bs::Phase::aborted);
    CHECK(host.calls == std::vector<std::string>{"disable"});
}

TEST_CASE("a kexec that cannot load ends the sweep without marking the step") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2}));
    start(host, d, plan);
    host.boot_loaded();
    host.fail_load = true;
    CHECK_THROWS_AS(run_continue(host, d), hugetune::RuntimeError);
    const bs::State s = load(d);
    CHECK(s.phase == bs::Phase::aborted);
    CHECK(s.steps[0].recorded);
    CHECK_FALSE(s.steps[1].attempted);
    CHECK(s.abort_reason.find("bad image") != std::string::npos);
}

TEST_CASE("a state that cannot be written stops the step before any effect") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2}));
    start(host, d, plan);
    host.boot_loaded();
    host.fail_write = true;
    CHECK_THROWS_AS(run_continue(host, d), hugetune::UsageError);
    CHECK(host.calls.empty());  // nothing loaded, nothing started
    host.fail_write = false;
    CHECK(load(d).steps[0].attempted);
    CHECK_FALSE(load(d).steps[0].recorded);
}

TEST_CASE("the live host under --root and --dry-run: every effect printed, none done") {
    Dir d;
    const fs::path root = d.path / "root";
    for (const char* dir : {"proc/sys/kernel/random", "dev", "var/lib/hugetune"})
        fs::create_directories(root / dir);
    std::ofstream(root / "proc/sys/kernel/random/boot_id") << "boot-0\n";
    std::ofstream(root / "proc/cmdline") << kOriginal << "\n";
    std::ofstream(root / "proc/sys/kernel/osrelease") << "6.15.3\n";
    std::ofstream(root / "dev/kmsg") << "Linux version 6.15.3\n";
    const hugetune::KernelFs kfs(root);
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2}));
    const fs::path state = bs::kDefaultStatePath;  // as the tree's system names it
    const fs::path state_here = root / "var/lib/hugetune/boot-sweep.json";

    SUBCASE("--dry-run: nothing written, nothing run") {
        std::ostringstream out;
        hugetune::Effects effects(kfs.root_dir(), true, out);
        bs::LiveHost host(kfs, effects, true, {"/usr/bin/hugetune"}, bs::kDefaultStatePath);
        bs::carry_out(bs::plan_start(plan, bs::Finish::kexec, true, host.this_boot()), host, state);
        CHECK_FALSE(fs::exists(state_here));
        CHECK_FALSE(fs::exists(root / "etc/systemd/system" / bs::kUnitName));
        const std::string plan_text = out.str();
        CHECK(plan_text.find("would write " + state_here.string()) != std::string::npos);
        CHECK(plan_text.find("would run: kexec -l " + (root / "boot/vmlinuz-6.15.3").string()) !=
              std::string::npos);
        CHECK(plan_text.find("would run: systemctl --no-block kexec") != std::string::npos);
        // Under a root, the dry run says what the real run would: not run, because of the root.
        std::size_t programs = 0;
        for (const auto& line : effects.planned())
            if (line.starts_with("would run: ")) {
                ++programs;
                CHECK(
                    line.ends_with("  (not run: root " + root.string() + " is not this machine)"));
            }
        CHECK(programs == 3);
    }
    SUBCASE("--root: files inside the root written, programs printed") {
        std::ostringstream out;
        hugetune::Effects effects(kfs.root_dir(), false, out);
        bs::LiveHost host(kfs, effects, true, {"/usr/bin/hugetune"}, bs::kDefaultStatePath);
        bs::carry_out(bs::plan_start(plan, bs::Finish::kexec, true, host.this_boot()), host, state);
        CHECK(load_state(state_here).steps[0].attempted);
        CHECK(fs::exists(root / "etc/systemd/system" / bs::kUnitName));
        std::size_t programs = 0;
        for (const auto& line : effects.planned())
            programs += line.starts_with("would run: ") ? 1 : 0;
        CHECK(programs == 3);  // systemctl enable, kexec -l, systemctl kexec
        CHECK(out.str().find("(not run: root ") != std::string::npos);  // the engine's word
        // and nothing outside the root: ".." stops at it
        CHECK(effects.write_file("/../outside.json", "{}"));
        CHECK(fs::exists(root / "outside.json"));
        CHECK_FALSE(fs::exists(d.path / "outside.json"));
    }
}

TEST_CASE("the state file: round trip, and one line naming the field for each bad input") {
    Dir d;
    FakeHost host;
    const bs::Plan plan = bs::make_plan(facts(), request({1, 2}));
    start(host, d, plan);
    const auto document = hugetune::read_json_file(d.state());
    CHECK(bs::to_json(bs::state_from_json(document)) == document);

    auto error_of = [&](const std::string& text) {
        std::ofstream(d.state(), std::ios::trunc) << text;
        try {
            bs::read_state(this_machine(), d.state().string());
        } catch (const hugetune::UsageError& e) {  // the file itself
            const std::string message = e.what();
            CHECK(message.find('\n') == std::string::npos);
            CHECK(message.find(d.state().string()) != std::string::npos);
            return message;
        } catch (const hugetune::model::InputError& e) {  // a field, about the file
            const std::string message = e.what();
            CHECK(message.find('\n') == std::string::npos);
            CHECK(e.source().name == d.state().string());
            return message;
        }
        FAIL("accepted: " << text);
        return std::string();
    };
    const std::string full = document.dump();
    CHECK(error_of(full.substr(0, full.size() / 2)).find("not valid JSON") != std::string::npos);
    auto changed = [&](const std::string& pointer, const nlohmann::json& value) {
        auto copy = document;
        copy[nlohmann::json::json_pointer(pointer)] = value;
        return copy.dump();
    };
    CHECK(error_of(changed("/format_version", 2)).find("format_version: 2 is not supported") !=
          std::string::npos);
    CHECK(error_of(changed("/format", "hugetune-sweep")).find("format: not") != std::string::npos);
    CHECK(error_of(changed("/steps/0/threads", "one")).find("steps[0].threads: must be") !=
          std::string::npos);
    CHECK(error_of(changed("/phase", "paused")).find("phase: 'paused' is not one of") !=
          std::string::npos);
    CHECK(error_of(changed("/abort_requested", 1)).find("abort_requested: must be true or false") !=
          std::string::npos);
    CHECK(error_of(changed("/steps/0/attempted/boot_id", 7)).find("steps[0].attempted.boot_id") !=
          std::string::npos);
    // What is kexec'd comes from the plan's fields and is checked against them.
    const std::string forged_line = plan.steps[1].cmdline + "0000000";
    CHECK(error_of(changed("/plan/steps/1/cmdline", forged_line))
              .find("plan.steps[1]: is not the step the plan derives") != std::string::npos);
    CHECK(error_of(changed("/steps/1/cmdline", forged_line))
              .find("steps[1]: is not the plan's step 2") != std::string::npos);
    CHECK(error_of(changed("/plan/threads/1", 1000000000)).find("plan.threads[1]: must be") !=
          std::string::npos);
    CHECK(error_of(changed("/plan/threads/1", 9)).find("plan.threads[1]: 9 is above online_cpus") !=
          std::string::npos);
    CHECK(error_of(changed("/plan/threads/1", 1)).find("ascending") != std::string::npos);
    CHECK(error_of(changed("/plan/pages", 1ULL << 40)).find("plan.pages: is a pool above") !=
          std::string::npos);
    CHECK(error_of(changed("/plan/page_size_kb", 1048576)).find("plan.page_size_kb: must be") !=
          std::string::npos);
    CHECK(error_of(changed("/plan/repetitions", 99)).find("plan.repetitions: must be") !=
          std::string::npos);
    // A step whose threads and command line were both rewritten to agree is still not derived.
    auto both = document;
    both["plan"]["threads"][1] = 8;
    CHECK(error_of(both.dump()).find("plan.steps[1]: is not the step the plan derives") !=
          std::string::npos);
    fs::remove(d.state());
    CHECK_FALSE(bs::read_state(this_machine(), d.state().string()));
}

TEST_CASE("the result: medians, spread, and the fewest threads within the tolerance") {
    bs::State s;
    s.plan = bs::make_plan(facts(), request({1, 2, 4, 8}, 2));
    const std::vector<std::uint64_t> ms = {1000, 510, 500, 505, 1200, 506, 500, 505};
    for (std::size_t i = 0; i < s.plan.steps.size(); ++i) {
        bs::StepState step{s.plan.steps[i], bs::Attempt{"t", "b"}, std::nullopt};
        step.recorded = bs::Record{"t",
                                   ms[i],
                                   static_cast<std::uint64_t>(step.step.threads),
                                   "b" + std::to_string(i),
                                   "6.15.3",
                                   step.step.cmdline,
                                   true,
                                   false};
        s.steps.push_back(step);
    }
    const bs::Result r = bs::summarize(s, 0.02);
    REQUIRE(r.by_threads.size() == 4);
    CHECK(r.by_threads[0].median_ms == 1100);
    CHECK(r.by_threads[0].spread == doctest::Approx(200.0 / 1100));
    CHECK(r.by_threads[1].median_ms == 508);
    CHECK(r.best_threads == 2);  // 508 is within 2% of the best 500
    CHECK(bs::summarize(s, 0.01).best_threads == 4);
    CHECK(bs::format_result(r).find("hugepage_alloc_threads=2") != std::string::npos);
    s.steps.back().recorded.reset();
    CHECK_FALSE(bs::summarize(s).complete);
}

TEST_CASE("the unit runs continue on the state file, once per boot, with a timeout") {
    const std::string unit = bs::unit_text(
        {"/usr/bin/hugetune", "boot-sweep", "continue", "--state", "/var/lib/hugetune/bs.json"},
        "/var/lib/hugetune/bs.json");
    CHECK(unit.find("ExecStart=/usr/bin/hugetune boot-sweep continue --state "
                    "/var/lib/hugetune/bs.json\n") != std::string::npos);
    CHECK(unit.find("ConditionPathExists=/var/lib/hugetune/bs.json\n") != std::string::npos);
    CHECK(unit.find("Type=oneshot\n") != std::string::npos);
    CHECK(unit.find("After=local-fs.target\n") != std::string::npos);
    CHECK(unit.find("TimeoutStartSec=") != std::string::npos);
    const std::string odd = bs::unit_text(
        {"/opt/my tools/hugetune", "boot-sweep", "continue", "--state", "/var/lib/100%/s.json"},
        "/var/lib/100%/s.json");
    CHECK(odd.find("ExecStart=\"/opt/my tools/hugetune\" boot-sweep continue --state "
                   "/var/lib/100%%/s.json\n") != std::string::npos);
}

TEST_CASE("a path the unit names can neither add a line nor be expanded by systemd") {
    const std::string specifiers = bs::unit_text(
        {"/usr/bin/hugetune", "boot-sweep", "continue", "--state", "/var/lib/%h/$HOME;x.json"},
        "/var/lib/%h/$HOME;x.json");
    CHECK(specifiers.find("\nConditionPathExists=/var/lib/%%h/$HOME;x.json\n") !=
          std::string::npos);
    CHECK(specifiers.find("--state \"/var/lib/%%h/$$HOME;x.json\"\n") != std::string::npos);
    const std::string forged = "/var/lib/x.json\nExecStartPre=/bin/touch /PWNED";
    CHECK_THROWS_AS(
        bs::unit_text({"/usr/bin/hugetune", "boot-sweep", "continue", "--state", forged}, forged),
        hugetune::RuntimeError);
    CHECK_THROWS_AS(bs::unit_text({"/usr/bin/huge\rtune"}, "/var/lib/x.json"),
                    hugetune::RuntimeError);
    CHECK(bs::unit_path_problem(forged).has_value());
    CHECK(bs::unit_path_problem("/var/lib/x\\").has_value());
    CHECK(bs::unit_path_problem("/var/lib/x ").has_value());
    CHECK_FALSE(bs::unit_path_problem("/var/lib/my sweep/x.json").has_value());
}

TEST_CASE("a step's command line sets init_on_alloc and hugetlb_free_vmemmap where asked") {
    const std::string original = "root=/dev/sda1 hugetlb_free_vmemmap=on init_on_alloc=1 quiet";
    CHECK(bs::step_cmdline(original, 2048, 64, 2, {std::nullopt, false}) ==
          "root=/dev/sda1 init_on_alloc=1 quiet hugepagesz=2M hugepages=64 "
          "hugepage_alloc_threads=2 hugetlb_free_vmemmap=off");
    CHECK(bs::step_cmdline(original, 2048, 64, 2, {false, true}) ==
          "root=/dev/sda1 quiet hugepagesz=2M hugepages=64 hugepage_alloc_threads=2 "
          "init_on_alloc=0 hugetlb_free_vmemmap=on");
}

TEST_CASE(
    "settings as a second dimension: every setting on every count, repetition by repetition") {
    auto f = facts();
    f.hvo_sysctl = true;
    bs::Request r = request({1, 2}, 2);
    r.init_on_alloc = {false, true};
    r.hugetlb_free_vmemmap = {true};
    const bs::Plan plan = bs::make_plan(f, r);
    REQUIRE(plan.steps.size() == 8);
    const std::vector<bs::BootSettings> settings = bs::plan_settings(plan);
    REQUIRE(settings.size() == 2);
    CHECK(settings[0] == bs::BootSettings{false, true});
    CHECK(settings[1] == bs::BootSettings{true, true});
    // Repetition 1: init_on_alloc 0 at 1 and 2 threads, then 1 at 1 and 2; then repetition 2.
    CHECK(plan.steps[0].settings == settings[0]);
    CHECK(plan.steps[1].threads == 2);
    CHECK(plan.steps[2].settings == settings[1]);
    CHECK(plan.steps[2].threads == 1);
    CHECK(plan.steps[4].repetition == 2);
    CHECK(plan.steps[4].settings == settings[0]);
    CHECK(plan.steps[3].cmdline ==
          kOriginal +
              " hugepagesz=2M hugepages=1024 hugepage_alloc_threads=2 init_on_alloc=1 "
              "hugetlb_free_vmemmap=on");
    const std::string text = bs::format_plan(plan);
    CHECK(text.find("8 boots by kexec (2 thread counts x 2 settings x 2 repetitions)") !=
          std::string::npos);
    CHECK(text.find("setting 2: init_on_alloc=1, hugetlb_free_vmemmap=on") != std::string::npos);

    SUBCASE("HVO values on a kernel without HVO are refused before anything") {
        f.hvo_sysctl = false;
        CHECK(code_of([&] { bs::make_plan(f, r); }) == static_cast<int>(ExitCode::unsupported));
    }
    SUBCASE("a value twice is refused") {
        r.init_on_alloc = {true, true};
        CHECK(code_of([&] { bs::make_plan(f, r); }) == static_cast<int>(ExitCode::usage));
    }
}

TEST_CASE("a sweep over two settings records each boot with what the kernel says it ran") {
    Dir d;
    FakeHost host;
    auto f = facts();
    f.hvo_sysctl = true;
    bs::Request r = request({1, 2});
    r.init_on_alloc = {false, true};
    r.hugetlb_free_vmemmap = {false, true};
    const bs::Plan plan = bs::make_plan(f, r);
    REQUIRE(plan.steps.size() == 8);
    start(host, d, plan);
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        host.boot_loaded();
        run_continue(host, d);
    }
    const bs::State s = load(d);
    CHECK(s.phase == bs::Phase::finishing);
    for (const auto& step : s.steps) {
        REQUIRE(step.recorded);
        CHECK(step.recorded->init_on_alloc == step.step.settings.init_on_alloc);
        CHECK(step.recorded->hvo == step.step.settings.hugetlb_free_vmemmap);
    }
    const bs::Result result = bs::summarize(s);
    REQUIRE(result.by_setting.size() == 4);
    CHECK(result.by_setting[3].settings == bs::BootSettings{true, true});
    CHECK(result.by_setting[3].by_threads.size() == 2);
    CHECK(result.by_threads.size() == 2);  // the first setting's
    const auto doc = bs::to_json(result);
    CHECK(doc["init_on_alloc"].is_null());
    CHECK(doc["init_on_alloc_values"] == nlohmann::json::array({false, true}));
    CHECK(doc["hugetlb_free_vmemmap_values"] == nlohmann::json::array({false, true}));
    CHECK(doc["steps"][2]["init_on_alloc"] == false);
    CHECK(doc["steps"][2]["hugetlb_free_vmemmap"] == true);
    CHECK(doc["steps"][2]["logged_init_on_alloc"] == false);
    CHECK(doc["steps"][2]["hvo"] == true);
    CHECK(doc["by_setting"].size() == 4);
    CHECK(doc["by_setting"][1]["best"]["threads"] == 2);
    CHECK(bs::format_result(result).find("init_on_alloc=1, hugetlb_free_vmemmap=on:\n") !=
          std::string::npos);
}

TEST_CASE("a boot that did not take the step's setting ends the sweep, unrecorded") {
    Dir d;
    FakeHost host;
    auto f = facts();
    f.hvo_sysctl = true;
    bs::Request r = request({1});
    std::string reason;
    SUBCASE("init_on_alloc") {
        r.init_on_alloc = {false};
        reason = "the kernel logged init_on_alloc on";
    }
    SUBCASE("HVO") {
        r.hugetlb_free_vmemmap = {true};
        reason = "the kernel runs with HVO off (/proc/sys/vm/hugetlb_optimize_vmemmap)";
    }
    SUBCASE("HVO on a boot without the sysctl") {
        r.hugetlb_free_vmemmap = {true};
        host.default_hvo = std::nullopt;
        reason = "this boot has no /proc/sys/vm/hugetlb_optimize_vmemmap";
    }
    const bs::Plan plan = bs::make_plan(f, r);
    start(host, d, plan);
    host.honour_settings = false;
    host.boot_loaded();
    run_continue(host, d);
    const bs::State s = load(d);
    CHECK(s.phase == bs::Phase::aborted);
    CHECK_MESSAGE(s.abort_reason.find(reason) != std::string::npos, s.abort_reason);
    CHECK_FALSE(s.steps[0].recorded);
    CHECK(host.calls ==
          std::vector<std::string>{"load " + plan.original_cmdline, "disable", "exec"});
}

TEST_CASE("the state keeps the settings: round trip, a state of one value, forged values") {
    auto f = facts();
    f.hvo_sysctl = true;
    bs::Request r = request({1, 2});
    r.init_on_alloc = {true, false};
    r.hugetlb_free_vmemmap = {true};
    bs::State state;
    state.plan = bs::make_plan(f, r);
    for (const auto& step : state.plan.steps)
        state.steps.push_back({step, {}, {}});
    state.steps[0].recorded =
        bs::Record{"t1", 900, 1, "boot-1", "6.15.3", state.plan.steps[0].cmdline, true, true};
    const auto doc = bs::to_json(state);
    const bs::State back = bs::state_from_json(doc);
    CHECK(back.plan.init_on_alloc == std::vector<bool>{true, false});
    CHECK(back.plan.hugetlb_free_vmemmap == std::vector<bool>{true});
    CHECK(back.steps[2].step.settings == bs::BootSettings{false, true});
    CHECK(back.steps[0].recorded->init_on_alloc == true);
    CHECK(back.steps[0].recorded->hvo == true);

    const auto refused = [](nlohmann::json d, const std::string& part) {
        try {
            bs::state_from_json(d);
            FAIL("accepted");
        } catch (const hugetune::model::InputError& e) {
            CHECK_MESSAGE(std::string(e.what()).find(part) != std::string::npos, e.what());
        }
    };
    auto twice = doc;
    twice["plan"]["init_on_alloc_values"] = {true, true};
    refused(twice, "must list each of true and false at most once");
    auto disagree = doc;
    disagree["plan"]["init_on_alloc"] = true;
    refused(disagree, "disagrees with init_on_alloc_values");
    auto other = doc;
    other["plan"]["hugetlb_free_vmemmap_values"] = {false};
    refused(other, "is not the step the plan derives");
    // A step's own setting fields are for readers: the plan's derive them.
    auto step_field = doc;
    step_field["plan"]["steps"][0]["init_on_alloc"] = false;
    CHECK(bs::state_from_json(step_field).plan.steps[0].settings.init_on_alloc == true);

    SUBCASE("a state written before the value lists: one init_on_alloc for every step") {
        bs::Request one = request({1, 2});
        one.init_on_alloc = {false};
        bs::State old;
        old.plan = bs::make_plan(facts(), one);
        for (const auto& step : old.plan.steps)
            old.steps.push_back({step, {}, {}});
        auto older = bs::to_json(old);
        older["plan"].erase("init_on_alloc_values");
        older["plan"].erase("hugetlb_free_vmemmap_values");
        for (auto& step : older["plan"]["steps"]) {
            step.erase("init_on_alloc");
            step.erase("hugetlb_free_vmemmap");
        }
        const bs::State read = bs::state_from_json(older);
        CHECK(read.plan.init_on_alloc == std::vector<bool>{false});
        CHECK(read.steps[1].step.settings == bs::BootSettings{false, std::nullopt});
    }
}
