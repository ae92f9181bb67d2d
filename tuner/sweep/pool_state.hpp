// The machine belongs to someone else: every huge page value a sweep changes is saved to a
// state file before the first change and put back on every exit path. A crash or SIGKILL
// leaves the file, and the next hugetune command (or `hugetune restore`) restores from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/input/input_error.hpp"
#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/system/file_lock.hpp"

namespace hugetune {

inline const std::filesystem::path kDefaultRuntimeDir = "/run/hugetune";

struct NodePoolValue {
    int node = 0;
    std::uint64_t nr_hugepages = 0;

    bool operator==(const NodePoolValue&) const = default;
};

// The values of one page size that a sweep may change.
struct PoolValues {
    std::uint64_t size_kb = 0;
    std::uint64_t nr_hugepages = 0;
    std::uint64_t nr_overcommit_hugepages = 0;
    std::vector<NodePoolValue> nodes;

    bool operator==(const PoolValues&) const = default;
};

struct SavedState {
    long pid = 0;
    std::string started_at;  // UTC, ISO 8601
    std::string command;
    std::vector<PoolValues> pools;
    // /proc/sys/vm/hugetlb_optimize_vmemmap before the sweep's HVO pass changed it (0 or 1);
    // nothing when the sweep does not change it.
    std::optional<std::uint64_t> hugetlb_optimize_vmemmap;
};

// sysfs paths of one page size: global and per node.
std::string pool_dir(std::uint64_t size_kb);
std::string node_pool_dir(int node, std::uint64_t size_kb);
// NUMA nodes that have a per-node directory for this page size.
std::vector<int> pool_nodes(const KernelFs& fs, std::uint64_t size_kb);

// Throws UnsupportedError when the page size's files cannot be read.
PoolValues read_pool_values(const KernelFs& fs, std::uint64_t size_kb);

nlohmann::json to_json(const SavedState& state);
// Throws model::InputError about `input` naming the field that is wrong.
SavedState saved_state_from_json(const nlohmann::json& j, const model::InputSource& input = {});

struct RestoreReport {
    std::vector<std::string> changes;   // "2048kB node0 nr_hugepages 128 -> 0"
    std::vector<std::string> problems;  // values that could not be put back, and why
    bool writes_failed = false;         // the kernel refused a write: keep the state file

    std::string summary() const;
};

// Puts `saved` back, writing only values that differ. The overcommit limit goes first so no new
// surplus page appears while the pool shrinks. Shrinking is safe for others: the kernel never
// frees a page that is in use or reserved (set_max_huge_pages keeps the pool at or above
// resv + in use), so a pool that others still use stays larger and is reported, not forced.
RestoreReport restore_pools(const KernelFs& fs, const std::vector<PoolValues>& saved);
// Everything `state` saved: the pools (restore_pools), then the HVO sysctl when it was saved.
// The sysctl applies only to pages allocated after it is written (docs/kernel-facts.md "HVO"),
// so its order against the pools changes nothing for the pages being freed.
RestoreReport restore_saved(const KernelFs& fs, const SavedState& state);

// An exclusive flock on <dir>/lock for as long as the object lives (one sweep or restore at a
// time; the kernel drops it when the process dies, so a crash never leaves a stale lock).
class RunLock {
  public:
    // Throws BusyError when another process holds it.
    explicit RunLock(const std::filesystem::path& dir = kDefaultRuntimeDir);
    // Nothing when another process holds it.
    static std::optional<RunLock> try_acquire(
        const std::filesystem::path& dir = kDefaultRuntimeDir);

    const std::filesystem::path& dir() const { return dir_; }

  private:
    RunLock(std::filesystem::path dir, FileLock lock)
        : dir_(std::move(dir)), lock_(std::move(lock)) {}
    std::filesystem::path dir_;
    FileLock lock_;
};

std::filesystem::path state_file_path(const std::filesystem::path& dir = kDefaultRuntimeDir);
// Nothing when there is no state file; throws Error (a failure: hugetune wrote the file) naming
// the file when it cannot be read, parsed or read as a state.
std::optional<SavedState> read_state_file(const std::filesystem::path& dir = kDefaultRuntimeDir);

// Saves the current values of `sizes_kb` to the state file (atomically) on construction, before
// the caller changes anything, and restores them and removes the file on destruction. Needs the
// run lock, so no other hugetune reads the file while it describes a live sweep. The HVO sysctl
// is saved and restored the same way when asked.
class PoolGuard {
  public:
    // `save_hvo_sysctl`: the caller may also change /proc/sys/vm/hugetlb_optimize_vmemmap (saved
    // only where the file exists).
    PoolGuard(const KernelFs& fs, const RunLock& lock, const std::vector<std::uint64_t>& sizes_kb,
              std::string command, bool save_hvo_sysctl = false);
    ~PoolGuard();
    PoolGuard(const PoolGuard&) = delete;
    PoolGuard& operator=(const PoolGuard&) = delete;

    const SavedState& saved() const { return saved_; }
    const PoolValues& saved_pool(std::uint64_t size_kb) const;
    // Restores now (idempotent); the destructor then has nothing left to do.
    RestoreReport restore();

  private:
    const KernelFs& fs_;
    std::filesystem::path dir_;
    SavedState saved_;
    bool restored_ = false;
};

struct Recovery {
    SavedState state;
    RestoreReport report;
};

// What `hugetune restore` and the start of every command as root do: when a state file exists
// and no sweep holds the lock, restore from it and remove it. Nothing when there is no file or a
// sweep is running. Throws RuntimeError, writing nothing and keeping the file, when the file is
// unreadable or not what an interrupted sweep leaves: a writer that is still running, a page
// size or node this kernel lacks, or a value above the current one (a sweep only grows pools,
// so restoring such a value would allocate pages rather than give them back), or a saved HVO
// sysctl that is not 0 or 1 or whose file this kernel lacks.
std::optional<Recovery> recover_from_state_file(const KernelFs& fs, const RunLock& lock);

}  // namespace hugetune
