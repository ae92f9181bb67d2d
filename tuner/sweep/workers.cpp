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

#include "tuner/system/errors.hpp"

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

TimedRun run_timed(const Binder& binder, std::vector<ThreadTask>& tasks,
                   const std::function<void()>& before_release,
                   const std::function<void()>& after_done) {
    const std::size_t n = tasks.size();
    std::atomic<std::size_t> ready{0}, done{0};
    std::atomic<int> go{0}, teardown{0};
    std::atomic<bool> abort{false};
    std::vector<std::exception_ptr> errors(n);
    std::vector<Clock::time_point> ends(n);
    TimedRun run;
    run.threads.resize(n);

    auto body = [&](std::size_t i) {
        bool ok = true;
        try {
            binder.bind_this_thread(tasks[i].cpu);
            if (tasks[i].prepare)
                tasks[i].prepare();
        } catch (...) {
            errors[i] = std::current_exception();
            ok = false;
        }
        ready.fetch_add(1);
        ready.notify_all();
        go.wait(0);
        auto start = Clock::now();
        if (ok && !abort.load()) {
            try {
                run.threads[i].pages = tasks[i].work();
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
        auto end = Clock::now();
        ends[i] = end;
        run.threads[i].seconds = std::chrono::duration<double>(end - start).count();
        done.fetch_add(1);
        done.notify_all();
        teardown.wait(0);
        try {
            if (tasks[i].finish)
                tasks[i].finish();
        } catch (...) {
            if (!errors[i])
                errors[i] = std::current_exception();
        }
    };
    auto wait_for = [](std::atomic<std::size_t>& counter, std::size_t target) {
        for (auto seen = counter.load(); seen != target; seen = counter.load())
            counter.wait(seen);
    };
    std::vector<std::thread> threads;
    threads.reserve(n);
    auto release_all_and_join = [&] {
        abort.store(true);
        go.store(1);
        go.notify_all();
        teardown.store(1);
        teardown.notify_all();
        for (auto& t : threads)
            t.join();
    };
    try {
        for (std::size_t i = 0; i < n; ++i)
            threads.emplace_back(body, i);
        wait_for(ready, n);
        if (before_release)
            before_release();
    } catch (...) {
        release_all_and_join();
        throw;
    }
    auto release = Clock::now();
    go.store(1);
    go.notify_all();
    wait_for(done, n);
    Clock::time_point last = release;
    for (const auto& e : ends)
        last = std::max(last, e);
    run.wall_seconds = std::chrono::duration<double>(last - release).count();
    std::exception_ptr after_error;
    try {
        if (after_done)
            after_done();
    } catch (...) {
        after_error = std::current_exception();
    }
    teardown.store(1);
    teardown.notify_all();
    for (auto& t : threads)
        t.join();
    for (auto& e : errors)
        if (e)
            std::rethrow_exception(e);
    if (after_error)
        std::rethrow_exception(after_error);
    return run;
}

}  // namespace hugetune
