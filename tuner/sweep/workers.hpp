// Timed work on pinned threads: every thread is bound to one hardware thread (hwloc), prepares
// untimed, waits at one barrier, does its timed work, and tears down only after every thread
// has finished, so teardown (munmap, freeing pages) never overlaps the timed region.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace hugetune {

// The live machine's hwloc topology, for binding threads and memory (RAII).
class Binder {
  public:
    Binder();
    ~Binder();
    Binder(const Binder&) = delete;
    Binder& operator=(const Binder&) = delete;

    // Binds the calling thread to hardware thread `cpu` (OS index). Throws RuntimeError.
    void bind_this_thread(int cpu) const;
    // Binds the pages of [addr, addr+bytes) to NUMA node `node` (OS index), as mbind(MPOL_BIND)
    // does: faults there allocate on that node or fail. Throws RuntimeError.
    void bind_area(void* addr, std::size_t bytes, int node) const;
    // Interleaves the pages of [addr, addr+bytes) over `nodes` (OS indexes), as
    // mbind(MPOL_INTERLEAVE) does: the mapping's i-th huge page comes from the (i mod n)-th node
    // of the set, the first node first (docs/kernel-facts.md "The sweep against the boot").
    // Throws RuntimeError.
    void interleave_area(void* addr, std::size_t bytes, const std::vector<int>& nodes) const;

  private:
    struct Impl;
    Impl* impl_;
};

// One anonymous huge page mapping (RAII). With `reserve` the kernel reserves its pool pages at
// mmap(); without it (MAP_NORESERVE) each fault takes a page only when it happens.
class HugeMapping {
  public:
    HugeMapping() = default;
    // Throws RuntimeError with errno text when mmap() fails (ENOMEM: no pages to reserve).
    HugeMapping(std::size_t pages, std::uint64_t page_bytes, bool reserve);
    ~HugeMapping();
    HugeMapping(HugeMapping&& other) noexcept;
    HugeMapping& operator=(HugeMapping&& other) noexcept;
    HugeMapping(const HugeMapping&) = delete;
    HugeMapping& operator=(const HugeMapping&) = delete;

    char* data() const { return static_cast<char*>(addr_); }
    std::size_t bytes() const { return bytes_; }
    void reset();

  private:
    void* addr_ = nullptr;
    std::size_t bytes_ = 0;
};

// Faults every page of `m` for writing, in the calling thread, one page at a time, and returns
// how many pages it obtained. MADV_POPULATE_WRITE (Linux 5.14) runs the same fault path as a
// store to the page (so the kernel zeroes it here) but reports a page it cannot get as an error
// instead of SIGBUS, which is how a hugetlb fault without a page otherwise ends.
std::uint64_t fault_pages(const HugeMapping& m, std::uint64_t page_bytes);

struct ThreadTask {
    int cpu = 0;
    std::function<void()> prepare;        // untimed, before the barrier
    std::function<std::uint64_t()> work;  // timed; returns the pages it handled
    std::function<void()> finish;         // untimed, after every thread is done
};

struct ThreadTiming {
    double seconds = 0;       // from this thread's release to its own finish
    std::uint64_t pages = 0;  // returned by work()
};

struct TimedRun {
    double wall_seconds = 0;  // from the release to the last thread's finish
    std::vector<ThreadTiming> threads;
};

// Runs the tasks on one thread each. `before_release` runs on the calling thread once every
// thread has prepared; `after_done` once every thread has finished work() and before finish().
// An exception in any task is rethrown here after every thread has been joined.
TimedRun run_timed(const Binder& binder, std::vector<ThreadTask>& tasks,
                   const std::function<void()>& before_release,
                   const std::function<void()>& after_done);

// Seconds from `from` to `to`, as every timed run and the sweep's progress measure them.
double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to);

}  // namespace hugetune
