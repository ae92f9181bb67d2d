// Saving and restoring pool values, on a writable copy of a gathered tree (never the machine).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "model/errors.hpp"
#include "tuner/sweep/pool_state.hpp"
#include "tuner/system/atomic_file.hpp"

using namespace hugetune;
namespace fs = std::filesystem;

namespace {

// A private copy of a fixture tree and a runtime dir, removed afterwards.
struct Scratch {
    fs::path dir;
    explicit Scratch(const std::string& fixture) {
        std::string tmpl = (fs::temp_directory_path() / "hugetune-state-XXXXXX").string();
        REQUIRE(mkdtemp(tmpl.data()) != nullptr);
        dir = tmpl;
        fs::copy(std::string(HUGETUNE_SOURCE_DIR) + "/tests/fixtures/" + fixture, dir / "root",
                 fs::copy_options::recursive);
    }
    ~Scratch() { fs::remove_all(dir); }
    KernelFs kfs() const { return KernelFs(dir / "root"); }
    fs::path runtime() const { return dir / "run"; }
};

const std::string kNode1 = "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages";
const std::string kGlobal = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages";
const std::string kOver = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages";
const std::string kHvo = "/proc/sys/vm/hugetlb_optimize_vmemmap";

// The id of a process that has exited: what a state file left by a killed sweep names.
long dead_pid() {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0)
        _exit(0);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    return static_cast<long>(child);
}

// Writes `state` where a killed sweep leaves it.
void leave_state_file(const Scratch& s, const SavedState& state) {
    fs::create_directories(s.runtime());
    write_file_atomically(state_file_path(s.runtime()), to_json(state).dump());
}

}  // namespace

TEST_CASE("read_pool_values reads the global and per-node values of one size") {
    Scratch s("skylake-4node");
    KernelFs k = s.kfs();
    PoolValues v = read_pool_values(k, 2048);
    CHECK(v.nr_hugepages == 524288);
    CHECK(v.nr_overcommit_hugepages == 0);
    REQUIRE(v.nodes.size() == 4);
    CHECK(v.nodes[1].node == 1);
    CHECK(v.nodes[1].nr_hugepages == 131072);
    CHECK(pool_nodes(k, 2048) == std::vector<int>{0, 1, 2, 3});
    CHECK_THROWS_AS(read_pool_values(k, 16384), UnsupportedError);
}

TEST_CASE("restore_pools writes back only what changed and reports it") {
    Scratch s("skylake-4node");
    KernelFs k = s.kfs();
    PoolValues saved = read_pool_values(k, 2048);
    k.write_u64(kNode1, 131072 + 64);
    k.write_u64(kGlobal, 524288 + 64);
    k.write_u64(kOver, 128);
    RestoreReport r = restore_pools(k, {saved});
    CHECK_FALSE(r.writes_failed);
    CHECK(r.problems.empty());
    REQUIRE(r.changes.size() == 3);
    CHECK(r.changes[0] == "2048kB nr_overcommit_hugepages 128 -> 0");
    CHECK(r.changes[1] == "2048kB node1 nr_hugepages 131136 -> 131072");
    // On a real kernel the node write also fixes the global count; a plain tree needs both.
    CHECK(r.changes[2] == "2048kB nr_hugepages 524352 -> 524288");
    CHECK(read_pool_values(k, 2048) == saved);
    CHECK(restore_pools(k, {saved}).changes.empty());
}

TEST_CASE("a value the kernel will not take is a failed write, and the report says so") {
    Scratch s("vm-1node");
    KernelFs k = s.kfs();
    PoolValues saved = read_pool_values(k, 2048);
    k.write_u64(kOver, 5);
    const fs::path over = s.dir / "root" / kOver.substr(1);
    fs::remove(over);  // the file vanishes: the write fails
    fs::create_directory(over);
    RestoreReport r = restore_pools(k, {saved});
    CHECK(r.writes_failed);
    CHECK_FALSE(r.problems.empty());
}

TEST_CASE("state file JSON round-trips; a damaged one is a clear error") {
    SavedState st;
    st.pid = 4242;
    st.started_at = "2026-01-01T00:00:00Z";
    st.command = "sweep";
    st.pools.push_back({2048, 10, 3, {{0, 4}, {1, 6}}});
    SavedState back = saved_state_from_json(to_json(st));
    CHECK(back.pid == 4242);
    CHECK(back.command == "sweep");
    REQUIRE(back.pools.size() == 1);
    CHECK(back.pools[0] == st.pools[0]);

    auto j = to_json(st);
    j["format"] = "something-else";
    CHECK_THROWS_AS(saved_state_from_json(j), model::InputError);
    j = to_json(st);
    j["pools"][0].erase("nr_overcommit_hugepages");
    CHECK_THROWS_WITH_AS(saved_state_from_json(j),
                         "pools[0].nr_overcommit_hugepages: missing; inspect it, restore the "
                         "pools by hand and delete it",
                         model::InputError);

    Scratch s("vm-1node");
    fs::create_directories(s.runtime());
    std::ofstream(state_file_path(s.runtime())) << "{ not json";
    CHECK_THROWS_AS(read_state_file(s.runtime()), RuntimeError);
}

TEST_CASE("PoolGuard saves before changes and restores and removes the file when it ends") {
    Scratch s("skylake-4node");
    KernelFs k = s.kfs();
    PoolValues before = read_pool_values(k, 2048);
    {
        RunLock lock(s.runtime());
        PoolGuard guard(k, lock, {2048}, "sweep");
        auto on_disk = read_state_file(s.runtime());
        REQUIRE(on_disk.has_value());
        CHECK(on_disk->pid == static_cast<long>(getpid()));
        CHECK(on_disk->pools[0] == before);
        k.write_u64(kNode1, 7);
        k.write_u64(kOver, 9);
    }
    CHECK(read_pool_values(k, 2048) == before);
    CHECK_FALSE(fs::exists(state_file_path(s.runtime())));
}

TEST_CASE("a state file left by a dead sweep is restored once and removed") {
    Scratch s("skylake-4node");
    KernelFs k = s.kfs();
    PoolValues before = read_pool_values(k, 2048);
    // What a sweep killed after its first change leaves: the saved values and a changed pool.
    SavedState dead;
    dead.pid = dead_pid();
    dead.command = "sweep";
    dead.pools.push_back(before);
    leave_state_file(s, dead);
    k.write_u64(kNode1, 131072 + 64);
    REQUIRE(fs::exists(state_file_path(s.runtime())));
    RunLock lock(s.runtime());
    auto r = recover_from_state_file(k, lock);
    REQUIRE(r.has_value());
    CHECK(r->state.command == "sweep");
    CHECK(r->report.changes.size() == 1);  // node1 only: in a plain tree the global count stayed
    CHECK(read_pool_values(k, 2048) == before);
    CHECK_FALSE(fs::exists(state_file_path(s.runtime())));
    CHECK_FALSE(recover_from_state_file(k, lock).has_value());
}

TEST_CASE("the run lock admits one holder at a time") {
    Scratch s("vm-1node");
    {
        RunLock first(s.runtime());
        CHECK_FALSE(RunLock::try_acquire(s.runtime()).has_value());
        CHECK_THROWS_AS(RunLock second(s.runtime()), BusyError);
    }
    CHECK(RunLock::try_acquire(s.runtime()).has_value());
}

TEST_CASE("a state file that asks for more than a sweep could have changed is refused and kept") {
    Scratch s("skylake-4node");
    KernelFs k = s.kfs();
    const PoolValues now = read_pool_values(k, 2048);
    SavedState good;
    good.pid = dead_pid();
    good.command = "sweep";
    good.pools.push_back(now);
    struct Case {
        std::function<void(SavedState&)> edit;
        const char* message;
    };
    const Case cases[] = {
        // A sweep only grows pools, so its saved values are never above what is there now.
        {[](SavedState& st) { st.pools[0].nr_hugepages = 999999; },
         "2048kB nr_hugepages 524288 -> 999999 would grow the pool"},
        {[](SavedState& st) { st.pools[0].nodes[1].nr_hugepages = 131073; },
         "2048kB node1 nr_hugepages 131072 -> 131073 would grow the pool"},
        {[](SavedState& st) { st.pools[0].nr_overcommit_hugepages = 5; },
         "2048kB nr_overcommit_hugepages 0 -> 5 would grow the pool"},
        {[](SavedState& st) { st.pid = static_cast<long>(getpid()); }, "is running"},
        {[](SavedState& st) { st.pid = 0; }, "pid 0 is not a process id"},
        {[](SavedState& st) {
             st.pools[0].nodes.push_back({7, 0});
         },
         "node7 has no 2048kB pool"},
        {[](SavedState& st) { st.pools[0].size_kb = 4096; }, "no 4096kB huge pages"},
        {[](SavedState& st) { st.pools.push_back(st.pools[0]); }, "2048kB appears twice"},
        {[](SavedState& st) { st.pools[0].nodes.push_back(st.pools[0].nodes[0]); },
         "node0 appears twice"},
        {[](SavedState& st) { st.command = "rm -rf /"; }, "not written by a sweep"},
        {[](SavedState& st) { st.pools.clear(); }, "saves no pool"},
        {[](SavedState& st) { st.hugetlb_optimize_vmemmap = 2; },
         "hugetlb_optimize_vmemmap 2 is not 0 or 1"},
    };
    for (const auto& c : cases) {
        SavedState forged = good;
        c.edit(forged);
        leave_state_file(s, forged);
        const std::string text = to_json(forged).dump();
        CAPTURE(text);
        RunLock lock(s.runtime());
        std::string message;
        try {
            recover_from_state_file(k, lock);
        } catch (const RuntimeError& e) {
            message = e.what();
        }
        CAPTURE(message);
        CHECK(message.find(c.message) != std::string::npos);
        CHECK(message.find("is kept") != std::string::npos);
        CHECK(read_pool_values(k, 2048) == now);  // nothing of it was acted on
        CHECK(fs::exists(state_file_path(s.runtime())));
    }
}

TEST_CASE("the HVO sysctl is saved with the pools and put back by the guard and by recovery") {
    Scratch s("skylake-4node");
    KernelFs k = s.kfs();
    REQUIRE(k.read_u64(kHvo) == 1u);
    {
        RunLock lock(s.runtime());
        PoolGuard guard(k, lock, {2048}, "sweep", true);
        auto on_disk = read_state_file(s.runtime());
        REQUIRE(on_disk.has_value());
        CHECK(on_disk->hugetlb_optimize_vmemmap == 1u);
        k.write_u64(kHvo, 0);
    }
    CHECK(k.read_u64(kHvo) == 1u);
    CHECK_FALSE(fs::exists(state_file_path(s.runtime())));

    // A sweep killed during its HVO pass: `restore` puts the sysctl back as well.
    SavedState dead;
    dead.pid = dead_pid();
    dead.command = "sweep";
    dead.pools.push_back(read_pool_values(k, 2048));
    dead.hugetlb_optimize_vmemmap = 1;
    leave_state_file(s, dead);
    k.write_u64(kHvo, 0);
    RunLock lock(s.runtime());
    auto r = recover_from_state_file(k, lock);
    REQUIRE(r.has_value());
    CHECK(r->report.summary() == "hugetlb_optimize_vmemmap 0 -> 1");
    CHECK(k.read_u64(kHvo) == 1u);
    CHECK_FALSE(fs::exists(state_file_path(s.runtime())));
}

TEST_CASE("a state file without the HVO sysctl leaves it alone; one naming it needs the file") {
    Scratch s("vm-1node");
    KernelFs k = s.kfs();
    {
        RunLock lock(s.runtime());
        PoolGuard guard(k, lock, {2048}, "sweep", true);  // no sysctl here: nothing saved
        CHECK_FALSE(read_state_file(s.runtime())->hugetlb_optimize_vmemmap.has_value());
        CHECK(to_json(guard.saved()).count("hugetlb_optimize_vmemmap") == 0);
    }
    SavedState dead;
    dead.pid = dead_pid();
    dead.command = "sweep";
    dead.pools.push_back(read_pool_values(k, 2048));
    dead.hugetlb_optimize_vmemmap = 0;
    leave_state_file(s, dead);
    RunLock lock(s.runtime());
    std::string message;
    try {
        recover_from_state_file(k, lock);
    } catch (const RuntimeError& e) {
        message = e.what();
    }
    CHECK(message.find("this kernel has no /proc/sys/vm/hugetlb_optimize_vmemmap") !=
          std::string::npos);
    CHECK(fs::exists(state_file_path(s.runtime())));
}
