#include "tuner/sweep/workers.hpp"

#include <hwloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include "model/errors.hpp"

namespace hugetune {

using Clock = std::chrono::steady_clock;

struct Binder::Impl {
    hwloc_topology_t topo = nullptr;
};

Binder::Binder() : impl_(new Impl) {
    if (hwloc_topology_init(&impl_->topo) != 0 || hwloc_topology_load(impl_->topo) != 0) {
        if (impl_->topo)
            hwloc_topology_destroy(impl_->topo);
        delete impl_;
        throw RuntimeError("hwloc cannot read this machine's topology");
    }
}

Binder::~Binder() {
    hwloc_topology_destroy(impl_->topo);
    delete impl_;
}

namespace {

struct Bitmap {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    explicit Bitmap(int index) { hwloc_bitmap_only(set, static_cast<unsigned>(index)); }
    explicit Bitmap(const std::vector<int>& indexes) {
        hwloc_bitmap_zero(set);
        for (int i : indexes)
            hwloc_bitmap_set(set, static_cast<unsigned>(i));
    }
    ~Bitmap() { hwloc_bitmap_free(set); }
    Bitmap(const Bitmap&) = delete;
    Bitmap& operator=(const Bitmap&) = delete;
};

}  // namespace

void Binder::bind_this_thread(int cpu) const {
    Bitmap set(cpu);
    if (hwloc_set_cpubind(impl_->topo, set.set, HWLOC_CPUBIND_THREAD) != 0)
        throw RuntimeError("cannot bind a thread to CPU " + std::to_string(cpu) + ": " +
                           std::strerror(errno));
}

void Binder::bind_area(void* addr, std::size_t bytes, int node) const {
    if (bytes == 0)
        return;
    Bitmap set(node);
    if (hwloc_set_area_membind(impl_->topo, addr, bytes, set.set, HWLOC_MEMBIND_BIND,
                               HWLOC_MEMBIND_BYNODESET) != 0)
        throw RuntimeError("cannot bind memory to NUMA node " + std::to_string(node) + ": " +
                           std::strerror(errno));
}

void Binder::interleave_area(void* addr, std::size_t bytes, const std::vector<int>& nodes) const {
    if (bytes == 0)
        return;
    Bitmap set(nodes);
    if (hwloc_set_area_membind(impl_->topo, addr, bytes, set.set, HWLOC_MEMBIND_INTERLEAVE,
                               HWLOC_MEMBIND_BYNODESET) != 0)
        throw RuntimeError("cannot interleave memory over the NUMA nodes with memory: " +
                           std::string(std::strerror(errno)));
}

HugeMapping::HugeMapping(std::size_t pages, std::uint64_t page_bytes, bool reserve) {
    if (pages == 0)
        return;
    bytes_ = pages * page_bytes;
    int size_flag = std::countr_zero(page_bytes) << MAP_HUGE_SHIFT;
    int flags =
        MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | size_flag | (reserve ? 0 : MAP_NORESERVE);
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED) {
        int saved = errno;
        bytes_ = 0;
        throw RuntimeError("cannot map " + std::to_string(pages) +
                           " huge page(s): " + std::strerror(saved));
    }
    addr_ = p;
}

void HugeMapping::reset() {
    if (addr_)
        munmap(addr_, bytes_);
    addr_ = nullptr;
    bytes_ = 0;
}

HugeMapping::~HugeMapping() {
    reset();
}

HugeMapping::HugeMapping(HugeMapping&& other) noexcept : addr_(other.addr_), bytes_(other.bytes_) {
    other.addr_ = nullptr;
    other.bytes_ = 0;
}

HugeMapping& HugeMapping::operator=(HugeMapping&& other) noexcept {
    if (this != &other) {
        reset();
        addr_ = other.addr_;
        bytes_ = other.bytes_;
        other.addr_ = nullptr;
        other.bytes_ = 0;
    }
    return *this;
}

std::uint64_t fault_pages(const HugeMapping& m, std::uint64_t page_bytes) {
    std::uint64_t pages = m.bytes() / page_bytes;
    std::uint64_t i = 0;
    while (i < pages) {
        if (madvise(m.data() + i * page_bytes, page_bytes, MADV_POPULATE_WRITE) == 0) {
            ++i;
            continue;
        }
        if (errno == EINTR)
            continue;
        if (errno == EINVAL)
            throw UnsupportedError("this kernel lacks MADV_POPULATE_WRITE (Linux 5.14)");
        return i;  // ENOMEM or EFAULT: no page to be had (a shortfall, recorded by the caller)
    }
    return pages;
}

double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

namespace {

// What the calling thread and the pinned threads of one timed run share.
struct RunState {
    explicit RunState(std::size_t threads) : errors(threads), ends(threads) {
        run.threads.resize(threads);
    }
    std::atomic<std::size_t> ready{0}, done{0};
    std::atomic<int> go{0}, teardown{0};
    std::atomic<bool> abort{false};
    std::vector<std::exception_ptr> errors;  // the first of each thread
    std::vector<Clock::time_point> ends;
    TimedRun run;
};

void open_gate(std::atomic<int>& gate) {
    gate.store(1);
    gate.notify_all();
}

void count_one(std::atomic<std::size_t>& counter) {
    counter.fetch_add(1);
    counter.notify_all();
}

void wait_for(std::atomic<std::size_t>& counter, std::size_t target) {
    for (auto seen = counter.load(); seen != target; seen = counter.load())
        counter.wait(seen);
}

// Runs `step`, keeping what it throws in `error` unless an earlier step's error is there;
// false when it threw. A template, so that nothing is allocated inside the timed region.
template <class Step>
bool capture(Step&& step, std::exception_ptr& error) {
    try {
        step();
        return true;
    } catch (...) {
        if (!error)
            error = std::current_exception();
        return false;
    }
}

void pinned_thread(const Binder& binder, ThreadTask& task, std::size_t index, RunState& state) {
    std::exception_ptr& error = state.errors[index];
    ThreadTiming& timing = state.run.threads[index];
    bool prepared = capture(
        [&] {
            binder.bind_this_thread(task.cpu);
            if (task.prepare)
                task.prepare();
        },
        error);
    count_one(state.ready);
    state.go.wait(0);
    auto start = Clock::now();
    if (prepared && !state.abort.load())
        capture([&] { timing.pages = task.work(); }, error);
    state.ends[index] = Clock::now();
    timing.seconds = seconds_between(start, state.ends[index]);
    count_one(state.done);
    state.teardown.wait(0);
    capture(
        [&] {
            if (task.finish)
                task.finish();
        },
        error);
}

void join_all(std::vector<std::thread>& threads) {
    for (auto& t : threads)
        t.join();
}

// Lets every thread started so far skip its work, tear down and end: none outlives the run.
void abandon(RunState& state, std::vector<std::thread>& threads) {
    state.abort.store(true);
    open_gate(state.go);
    open_gate(state.teardown);
    join_all(threads);
}

Clock::time_point last_end(const std::vector<Clock::time_point>& ends, Clock::time_point release) {
    Clock::time_point last = release;
    for (const auto& e : ends)
        last = std::max(last, e);
    return last;
}

void rethrow_first(const std::vector<std::exception_ptr>& errors,
                   const std::exception_ptr& after_error) {
    for (const auto& e : errors)
        if (e)
            std::rethrow_exception(e);
    if (after_error)
        std::rethrow_exception(after_error);
}

}  // namespace

TimedRun run_timed(const Binder& binder, std::vector<ThreadTask>& tasks,
                   const std::function<void()>& before_release,
                   const std::function<void()>& after_done) {
    const std::size_t n = tasks.size();
    RunState state(n);
    std::vector<std::thread> threads;
    threads.reserve(n);
    try {
        for (std::size_t i = 0; i < n; ++i)
            threads.emplace_back([&, i] { pinned_thread(binder, tasks[i], i, state); });
        wait_for(state.ready, n);
        if (before_release)
            before_release();
    } catch (...) {
        abandon(state, threads);
        throw;
    }
    const auto release = Clock::now();
    open_gate(state.go);
    wait_for(state.done, n);
    state.run.wall_seconds = seconds_between(release, last_end(state.ends, release));
    std::exception_ptr after_error;
    capture(
        [&] {
            if (after_done)
                after_done();
        },
        after_error);
    open_gate(state.teardown);
    join_all(threads);
    rethrow_first(state.errors, after_error);
    return std::move(state.run);
}

}  // namespace hugetune
