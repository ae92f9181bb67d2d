#include "tuner/sweep/pool_state.hpp"

#include <signal.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <limits>
#include <set>

#include "model/errors.hpp"
#include "model/input/json_fields.hpp"
#include "model/text.hpp"
#include "tuner/kernel/kernel_files.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/json_file.hpp"

namespace hugetune {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Writes `value` to `file` when it differs from what is there; records the change or failure.
void put_back(const KernelFs& fs, const std::string& file, const std::string& label,
              std::uint64_t value, RestoreReport& report) {
    auto now = fs.read_u64(file);
    if (now && *now == value)
        return;
    try {
        fs.write_u64(file, value);
        report.changes.push_back(label + " " + (now ? std::to_string(*now) : "?") + " -> " +
                                 std::to_string(value));
    } catch (const Error& e) {
        report.writes_failed = true;
        report.problems.push_back(e.what());
    }
}

void verify(const KernelFs& fs, const std::string& file, const std::string& label,
            std::uint64_t value, RestoreReport& report) {
    auto now = fs.read_u64(file);
    if (now && *now == value)
        return;
    report.problems.push_back(label + " is " + (now ? std::to_string(*now) : "unreadable") +
                              ", was " + std::to_string(value) +
                              " (pages in use or reserved by other processes stay; the kernel "
                              "frees them when released)");
}

}  // namespace

std::string pool_dir(std::uint64_t size_kb) {
    return "/sys/kernel/mm/hugepages/hugepages-" + page_size_text(size_kb, SizeStyle::sysfs);
}

std::string node_pool_dir(int node, std::uint64_t size_kb) {
    return "/sys/devices/system/node/node" + std::to_string(node) + "/hugepages/hugepages-" +
           page_size_text(size_kb, SizeStyle::sysfs);
}

std::vector<int> pool_nodes(const KernelFs& fs, std::uint64_t size_kb) {
    std::vector<int> nodes;
    for (const auto& name : fs.list("/sys/devices/system/node")) {
        int id = -1;
        char extra = 0;
        if (std::sscanf(name.c_str(), "node%d%c", &id, &extra) != 1 || id < 0)
            continue;
        if (fs.exists(node_pool_dir(id, size_kb) + "/nr_hugepages"))
            nodes.push_back(id);
    }
    std::sort(nodes.begin(), nodes.end());
    return nodes;
}

PoolValues read_pool_values(const KernelFs& fs, std::uint64_t size_kb) {
    PoolValues v;
    v.size_kb = size_kb;
    auto dir = pool_dir(size_kb);
    auto nr = fs.read_u64(dir + "/nr_hugepages");
    auto over = fs.read_u64(dir + "/nr_overcommit_hugepages");
    if (!nr || !over)
        throw UnsupportedError("cannot read " + dir +
                               "/nr_hugepages and nr_overcommit_hugepages;"
                               " this kernel has no " +
                               page_size_text(size_kb, SizeStyle::sysfs) + " huge pages");
    v.nr_hugepages = *nr;
    v.nr_overcommit_hugepages = *over;
    for (int node : pool_nodes(fs, size_kb)) {
        auto n = fs.read_u64(node_pool_dir(node, size_kb) + "/nr_hugepages");
        if (!n)
            throw RuntimeError("cannot read " + node_pool_dir(node, size_kb) + "/nr_hugepages");
        v.nodes.push_back({node, *n});
    }
    return v;
}

json to_json(const SavedState& state) {
    json pools = json::array();
    for (const auto& p : state.pools) {
        json nodes = json::array();
        for (const auto& n : p.nodes)
            nodes.push_back({{"node", n.node}, {"nr_hugepages", n.nr_hugepages}});
        pools.push_back({{"size_kb", p.size_kb},
                         {"nr_hugepages", p.nr_hugepages},
                         {"nr_overcommit_hugepages", p.nr_overcommit_hugepages},
                         {"nodes", nodes}});
    }
    json j = {{"format", "hugetune-state"},     {"format_version", 1},      {"pid", state.pid},
              {"started_at", state.started_at}, {"command", state.command}, {"pools", pools}};
    if (state.hugetlb_optimize_vmemmap)
        j["hugetlb_optimize_vmemmap"] = *state.hugetlb_optimize_vmemmap;
    return j;
}

namespace {

constexpr const char* kStateFix = "inspect it, restore the pools by hand and delete it";

std::uint64_t count(const model::JsonField& field) {
    return static_cast<std::uint64_t>(field.whole_number({0}));
}

PoolValues read_pool(const model::JsonField& p) {
    PoolValues v;
    v.size_kb = static_cast<std::uint64_t>(p["size_kb"].whole_number());
    v.nr_hugepages = count(p["nr_hugepages"]);
    v.nr_overcommit_hugepages = count(p["nr_overcommit_hugepages"]);
    for (std::size_t i = 0, n = p["nodes"].array_size(); i < n; ++i) {
        const model::JsonField node = p["nodes"][i];
        v.nodes.push_back(
            {static_cast<int>(node["node"].whole_number({0, std::numeric_limits<int>::max()})),
             count(node["nr_hugepages"])});
    }
    return v;
}

}  // namespace

SavedState saved_state_from_json(const json& j, const model::InputSource& input) {
    const model::JsonField doc(j, kStateFix, input);
    doc.object();
    if (doc["format"].string() != "hugetune-state")
        doc["format"].fail("not 'hugetune-state'");
    doc["format_version"].whole_number({1, 1});
    SavedState s;
    s.pid = static_cast<long>(doc["pid"].whole_number({0}));
    s.started_at = doc["started_at"].optional_string().value_or("");
    s.command = doc["command"].optional_string().value_or("");
    for (std::size_t i = 0, n = doc["pools"].array_size(); i < n; ++i)
        s.pools.push_back(read_pool(doc["pools"][i]));
    if (const model::JsonField hvo = doc["hugetlb_optimize_vmemmap"]; hvo.present())
        s.hugetlb_optimize_vmemmap = count(hvo);
    return s;
}

std::string RestoreReport::summary() const {
    std::string out = changes.empty() ? "nothing needed changing" : join(changes);
    for (const auto& p : problems)
        out += "; " + p;
    return out;
}

namespace {

// One saved value: the file that holds it, a label for people and the value.
struct SavedValue {
    std::string file;
    std::string label;
    std::uint64_t value;
};

// In the order they are written back: overcommit first, the nodes, then the global count.
// Without per-node files (or if they do not add up), the global value is the contract.
std::vector<SavedValue> saved_values(const PoolValues& p) {
    const std::string size = page_size_text(p.size_kb, SizeStyle::sysfs);
    const std::string dir = pool_dir(p.size_kb);
    std::vector<SavedValue> values;
    values.push_back({dir + "/nr_overcommit_hugepages", size + " nr_overcommit_hugepages",
                      p.nr_overcommit_hugepages});
    for (const auto& n : p.nodes)
        values.push_back({node_pool_dir(n.node, p.size_kb) + "/nr_hugepages",
                          size + " node" + std::to_string(n.node) + " nr_hugepages",
                          n.nr_hugepages});
    values.push_back({dir + "/nr_hugepages", size + " nr_hugepages", p.nr_hugepages});
    return values;
}

}  // namespace

RestoreReport restore_pools(const KernelFs& fs, const std::vector<PoolValues>& saved) {
    RestoreReport report;
    for (const auto& p : saved) {
        const auto values = saved_values(p);
        for (const auto& v : values)
            put_back(fs, v.file, v.label, v.value, report);
        for (const auto& v : values)
            verify(fs, v.file, v.label, v.value, report);
    }
    return report;
}

RestoreReport restore_saved(const KernelFs& fs, const SavedState& state) {
    RestoreReport report = restore_pools(fs, state.pools);
    if (state.hugetlb_optimize_vmemmap) {
        const std::string file(hugetlb_optimize_vmemmap_file());
        put_back(fs, file, "hugetlb_optimize_vmemmap", *state.hugetlb_optimize_vmemmap, report);
        auto now = fs.read_u64(file);
        if (!now || *now != *state.hugetlb_optimize_vmemmap)
            report.problems.push_back("hugetlb_optimize_vmemmap is " +
                                      (now ? std::to_string(*now) : std::string("unreadable")) +
                                      ", was " + std::to_string(*state.hugetlb_optimize_vmemmap));
    }
    return report;
}

namespace {

FileLock held_run_lock(const fs::path& dir) {
    if (auto lock = FileLock::try_lock(dir / "lock"))
        return std::move(*lock);
    std::string who;
    try {
        if (auto s = read_state_file(dir))
            who = " (pid " + std::to_string(s->pid) + ")";
    } catch (const Error&) {
    }
    throw BusyError("another hugetune sweep or restore is running" + who + ": " +
                    (dir / "lock").string() + " is locked; wait for it to finish");
}

}  // namespace

RunLock::RunLock(const fs::path& dir) : dir_(dir), lock_(held_run_lock(dir)) {}

std::optional<RunLock> RunLock::try_acquire(const fs::path& dir) {
    auto lock = FileLock::try_lock(dir / "lock");
    if (!lock)
        return std::nullopt;
    return RunLock(dir, std::move(*lock));
}

fs::path state_file_path(const fs::path& dir) {
    return dir / "state.json";
}

std::optional<SavedState> read_state_file(const fs::path& dir) {
    const fs::path path = state_file_path(dir);
    std::error_code ec;
    if (!fs::exists(path, ec))
        return std::nullopt;
    return saved_state_from_json(read_json_file(path, {true, kStateFix}),
                                 {path.string(), "", true});
}

PoolGuard::PoolGuard(const KernelFs& fs, const RunLock& lock,
                     const std::vector<std::uint64_t>& sizes_kb, std::string command,
                     bool save_hvo_sysctl)
    : fs_(fs), dir_(lock.dir()) {
    saved_.pid = static_cast<long>(getpid());
    saved_.started_at = utc_now();
    saved_.command = std::move(command);
    for (auto kb : sizes_kb)
        saved_.pools.push_back(read_pool_values(fs, kb));
    if (save_hvo_sysctl)
        saved_.hugetlb_optimize_vmemmap = fs.read_u64(hugetlb_optimize_vmemmap_file());
    write_file_atomically(state_file_path(dir_), to_json(saved_).dump(2) + "\n");
}

const PoolValues& PoolGuard::saved_pool(std::uint64_t size_kb) const {
    for (const auto& p : saved_.pools)
        if (p.size_kb == size_kb)
            return p;
    throw RuntimeError("internal: page size " + std::to_string(size_kb) + " kB was not saved");
}

RestoreReport PoolGuard::restore() {
    if (restored_)
        return {};
    RestoreReport report = restore_saved(fs_, saved_);
    if (!report.writes_failed) {
        std::error_code ec;
        fs::remove(state_file_path(dir_), ec);
        restored_ = true;
    }
    return report;
}

PoolGuard::~PoolGuard() {
    if (restored_)
        return;
    try {
        RestoreReport report = restore();
        if (report.writes_failed)
            std::fprintf(stderr,
                         "hugetune: error: could not restore huge page pools (%s); the saved "
                         "values stay in %s: run 'hugetune restore'\n",
                         report.summary().c_str(), state_file_path(dir_).c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hugetune: error: restoring huge page pools failed: %s\n", e.what());
    }
}

namespace {

// Who wrote the file: a sweep of this hugetune that is no longer running.
std::optional<std::string> writer_problem(const SavedState& state) {
    if (state.command != "sweep" && state.command != "run")
        return "it was not written by a sweep (command '" + state.command + "')";
    if (state.pid <= 0 || state.pid > std::numeric_limits<pid_t>::max())
        return "pid " + std::to_string(state.pid) + " is not a process id";
    // A live sweep holds the run lock, so a running writer means the file is not what it says.
    if (kill(static_cast<pid_t>(state.pid), 0) == 0 || errno == EPERM)
        return "pid " + std::to_string(state.pid) + " is running";
    if (state.pools.empty())
        return std::string("it saves no pool");
    return std::nullopt;
}

// A sweep only grows pools (surplus pages, a larger nr_hugepages, a raised overcommit limit)
// and saves every value before its first change, so a saved value above the current one was
// not written by an interrupted sweep of this boot: restoring it would allocate pages.
std::optional<std::string> value_problem(const KernelFs& fs, const PoolValues& pool) {
    if (!fs.exists(pool_dir(pool.size_kb) + "/nr_hugepages"))
        return "this kernel has no " + page_size_text(pool.size_kb, SizeStyle::sysfs) +
               " huge pages";
    std::set<int> nodes;
    for (const auto& n : pool.nodes) {
        if (!nodes.insert(n.node).second)
            return page_size_text(pool.size_kb, SizeStyle::sysfs) + " node" +
                   std::to_string(n.node) + " appears twice";
        if (n.node < 0 || !fs.exists(node_pool_dir(n.node, pool.size_kb) + "/nr_hugepages"))
            return "node" + std::to_string(n.node) + " has no " +
                   page_size_text(pool.size_kb, SizeStyle::sysfs) + " pool";
    }
    for (const auto& v : saved_values(pool)) {
        const auto now = fs.read_u64(v.file);
        if (!now)
            return "cannot read " + v.file;
        if (v.value > *now)
            return v.label + " " + std::to_string(*now) + " -> " + std::to_string(v.value) +
                   " would grow the pool, and a sweep only ever grows pools";
    }
    return std::nullopt;
}

// Throws RuntimeError naming the first thing that makes `state` untrustworthy; nothing is
// written before every value has passed.
void check_saved_state(const KernelFs& fs, const SavedState& state,
                       const std::filesystem::path& file) {
    std::optional<std::string> problem = writer_problem(state);
    std::set<std::uint64_t> sizes;
    for (const auto& pool : state.pools) {
        if (problem)
            break;
        if (!sizes.insert(pool.size_kb).second)
            problem = page_size_text(pool.size_kb, SizeStyle::sysfs) + " appears twice";
        else
            problem = value_problem(fs, pool);
    }
    if (!problem && state.hugetlb_optimize_vmemmap) {
        if (*state.hugetlb_optimize_vmemmap > 1)
            problem = "hugetlb_optimize_vmemmap " +
                      std::to_string(*state.hugetlb_optimize_vmemmap) + " is not 0 or 1";
        else if (!fs.exists(hugetlb_optimize_vmemmap_file()))
            problem = "this kernel has no " + std::string(hugetlb_optimize_vmemmap_file());
    }
    if (problem)
        throw RuntimeError("refusing to restore from " + file.string() + ": " +
                           printable_text(*problem) +
                           "; nothing was changed and the file is kept: inspect it, restore the "
                           "pools by hand if needed and delete it");
}

}  // namespace

std::optional<Recovery> recover_from_state_file(const KernelFs& fs, const RunLock& lock) {
    auto state = read_state_file(lock.dir());
    if (!state)
        return std::nullopt;
    check_saved_state(fs, *state, state_file_path(lock.dir()));
    Recovery r{*state, restore_saved(fs, *state)};
    if (!r.report.writes_failed) {
        std::error_code ec;
        fs::remove(state_file_path(lock.dir()), ec);
        if (ec)
            throw RuntimeError("restored the pools but cannot remove " +
                               state_file_path(lock.dir()).string() + ": " + ec.message());
    }
    return r;
}

}  // namespace hugetune
