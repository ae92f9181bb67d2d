#include "sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <random>

#include "signal_guard.hpp"
#include "workers.hpp"

namespace hugetune {
namespace {

using Clock = std::chrono::steady_clock;

std::string signal_name(int sig) {
    switch (sig) {
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        case SIGHUP: return "SIGHUP";
    }
    return "signal " + std::to_string(sig);
}

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// Reads one per-node counter of the swept page size; a missing file mid-sweep is a failure.
std::uint64_t node_counter(const KernelFs& fs, int node, std::uint64_t size_kb,
                           const char* name) {
    auto file = node_pool_dir(node, size_kb) + "/" + name;
    auto v = fs.read_u64(file);
    if (!v) throw RuntimeError("cannot read " + file);
    return *v;
}

std::uint64_t pool_counter(const KernelFs& fs, std::uint64_t size_kb, const char* name) {
    auto file = pool_dir(size_kb) + "/" + name;
    auto v = fs.read_u64(file);
    if (!v) throw RuntimeError("cannot read " + file);
    return *v;
}

struct Repetition {
    TimedRun run;
    std::uint64_t shortfall_pages = 0;
};

// Runs the phases; holds nothing but references, the pool changes it makes are undone by the
// caller's PoolGuard if it throws.
class Engine {
public:
    Engine(const KernelFs& fs, const SweepPlan& plan, const Binder& binder,
           std::uint64_t saved_overcommit)
        : fs_(fs), plan_(plan), binder_(binder), saved_overcommit_(saved_overcommit) {}

    // Grows every node's persistent pool by the sample; returns warnings for nodes that could
    // not grow fully (their zero points then show the shortfall).
    std::vector<std::string> grow_zero_pool() {
        std::vector<std::string> warnings;
        for (const auto& n : plan_.nodes) {
            auto file = node_pool_dir(n.node, plan_.page_size_kb) + "/nr_hugepages";
            std::uint64_t base = node_counter(fs_, n.node, plan_.page_size_kb, "nr_hugepages");
            fs_.write_u64(file, base + plan_.pages_per_node);
            std::uint64_t now = node_counter(fs_, n.node, plan_.page_size_kb, "nr_hugepages");
            if (now < base + plan_.pages_per_node)
                warnings.push_back("node " + std::to_string(n.node) + ": the pool grew by only " +
                                   std::to_string(now - std::min(now, base)) + " of " +
                                   std::to_string(plan_.pages_per_node) +
                                   " pages (memory fragmented or in use)");
        }
        return warnings;
    }

    Repetition run(Phase phase, int threads_per_node) {
        switch (phase) {
            case Phase::zero: return run_faults(threads_per_node, /*fresh_pages=*/false);
            case Phase::alloc: return run_faults(threads_per_node, /*fresh_pages=*/true);
            case Phase::grow: return run_grow();
        }
        throw RuntimeError("internal: unknown phase");
    }

private:
    // zero: pool pages the sweep added, reserved at mmap(), so each fault only zeroes.
    // alloc: MAP_NORESERVE, no free pool page available, overcommit raised by exactly the
    // sample: each fault allocates a fresh surplus page from the buddy allocator in the
    // faulting thread (in parallel, without the resize lock) and zeroes it (KERNEL-FACTS.md).
    Repetition run_faults(int threads_per_node, bool fresh_pages) {
        const std::uint64_t page_bytes = plan_.page_bytes;
        const std::size_t node_count = plan_.nodes.size();
        const std::size_t total = node_count * static_cast<std::size_t>(threads_per_node);
        std::vector<HugeMapping> mappings(total);
        std::vector<ThreadTask> tasks(total);
        for (std::size_t ni = 0; ni < node_count; ++ni) {
            const NodePlan& node = plan_.nodes[ni];
            for (int t = 0; t < threads_per_node; ++t) {
                std::size_t k = ni * static_cast<std::size_t>(threads_per_node) +
                                static_cast<std::size_t>(t);
                std::uint64_t pages = pages_for_thread(plan_.pages_per_node, threads_per_node, t);
                ThreadTask& task = tasks[k];
                task.cpu = node.cpus[static_cast<std::size_t>(t)];
                task.prepare = [this, &mappings, k, pages, page_bytes, fresh_pages, &node] {
                    try {
                        mappings[k] = HugeMapping(pages, page_bytes, /*reserve=*/!fresh_pages);
                    } catch (const RuntimeError&) {
                        return;  // no pages to reserve: the thread gets none, a shortfall
                    }
                    binder_.bind_area(mappings[k].data(), mappings[k].bytes(), node.node);
                };
                task.work = [&mappings, k, page_bytes] {
                    return fault_pages(mappings[k], page_bytes);
                };
                task.finish = [&mappings, k] { mappings[k].reset(); };
            }
        }

        // alloc: a mapping that reserves every free, unreserved pool page (ours and other
        // people's) makes the kernel skip the pool (available = free - reserved = 0), so faults
        // take surplus pages and never a page someone else's pool holds.
        HugeMapping placeholder;
        if (fresh_pages) {
            placeholder = reserve_free_pool();
            fs_.write_u64(pool_dir(plan_.page_size_kb) + "/nr_overcommit_hugepages",
                          saved_overcommit_ + plan_.pages_per_node * node_count);
        }
        const char* counter = fresh_pages ? "surplus_hugepages" : "free_hugepages";
        std::map<int, std::uint64_t> before, after;
        auto read_counters = [&](std::map<int, std::uint64_t>& into) {
            for (const auto& n : plan_.nodes)
                into[n.node] = node_counter(fs_, n.node, plan_.page_size_kb, counter);
        };
        Repetition rep;
        try {
            rep.run = run_timed(
                binder_, tasks, [&] { read_counters(before); }, [&] { read_counters(after); });
        } catch (...) {
            if (fresh_pages) lower_overcommit();
            throw;
        }
        if (fresh_pages) lower_overcommit();

        for (std::size_t ni = 0; ni < node_count; ++ni) {
            int id = plan_.nodes[ni].node;
            std::uint64_t by_threads = 0;
            for (int t = 0; t < threads_per_node; ++t)
                by_threads += rep.run.threads[ni * static_cast<std::size_t>(threads_per_node) +
                                              static_cast<std::size_t>(t)]
                                  .pages;
            // Surplus rises, free falls, on the node the pages really came from.
            std::uint64_t by_counter = fresh_pages
                                           ? (after[id] > before[id] ? after[id] - before[id] : 0)
                                           : (before[id] > after[id] ? before[id] - after[id] : 0);
            std::uint64_t got = std::min(by_threads, by_counter);
            if (got < plan_.pages_per_node) rep.shortfall_pages += plan_.pages_per_node - got;
        }
        return rep;
    }

    // One thread per node writes its node's nr_hugepages: the kernel allocates the pages in the
    // writing thread without zeroing them, serialised by the page size's resize lock.
    Repetition run_grow() {
        std::vector<ThreadTask> tasks(plan_.nodes.size());
        std::map<int, std::uint64_t> base, after;
        for (std::size_t ni = 0; ni < plan_.nodes.size(); ++ni) {
            const NodePlan& node = plan_.nodes[ni];
            base[node.node] = node_counter(fs_, node.node, plan_.page_size_kb, "nr_hugepages");
            auto file = node_pool_dir(node.node, plan_.page_size_kb) + "/nr_hugepages";
            std::uint64_t target = base[node.node] + plan_.pages_per_node;
            tasks[ni].cpu = node.cpus.front();
            tasks[ni].work = [this, file, target] {
                fs_.write_u64(file, target);
                return plan_.pages_per_node;
            };
        }
        Repetition rep;
        auto shrink_back = [&] {
            for (const auto& n : plan_.nodes)
                fs_.write_u64(node_pool_dir(n.node, plan_.page_size_kb) + "/nr_hugepages",
                              base[n.node]);
        };
        try {
            rep.run = run_timed(binder_, tasks, nullptr, [&] {
                for (const auto& n : plan_.nodes)
                    after[n.node] = node_counter(fs_, n.node, plan_.page_size_kb, "nr_hugepages");
            });
        } catch (...) {
            shrink_back();
            throw;
        }
        shrink_back();
        for (const auto& n : plan_.nodes) {
            std::uint64_t got = after[n.node] > base[n.node] ? after[n.node] - base[n.node] : 0;
            if (got < plan_.pages_per_node) rep.shortfall_pages += plan_.pages_per_node - got;
        }
        return rep;
    }

    HugeMapping reserve_free_pool() {
        // The count can change between reading and mmap() (other processes); retry a little.
        for (int attempt = 0; attempt < 5; ++attempt) {
            std::uint64_t free = pool_counter(fs_, plan_.page_size_kb, "free_hugepages");
            std::uint64_t resv = pool_counter(fs_, plan_.page_size_kb, "resv_hugepages");
            if (free <= resv) return {};
            try {
                return HugeMapping(free - resv, plan_.page_bytes, /*reserve=*/true);
            } catch (const RuntimeError&) {
            }
        }
        return {};  // the counters on the point will show any page taken from the pool
    }

    void lower_overcommit() {
        fs_.write_u64(pool_dir(plan_.page_size_kb) + "/nr_overcommit_hugepages", saved_overcommit_);
    }

    const KernelFs& fs_;
    const SweepPlan& plan_;
    const Binder& binder_;
    std::uint64_t saved_overcommit_;
};

// Fisher-Yates with the raw generator so that a seed gives the same order on every standard
// library (std::shuffle's use of the generator is unspecified).
void shuffle_in_place(std::vector<std::size_t>& v, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

}  // namespace

SweepInterrupted::SweepInterrupted(int signal)
    : Error(ExitCode::interrupted,
            "interrupted by " + signal_name(signal) + "; huge page pools restored"),
      signal_number(signal) {}

double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double PointResult::median_seconds() const { return median(samples_seconds); }

SweepResult run_sweep(const KernelFs& fs, const Probe& probe, const SweepOptions& options,
                      ProgressSink* progress, const std::filesystem::path& runtime_dir) {
    if (!fs.is_live())
        throw UsageError("a sweep measures the running machine; --root works only with --dry-run");
    if (geteuid() != 0)
        throw NotRootError("a sweep changes huge page pools and needs root; run it with sudo");
    SweepPlan plan = plan_sweep(probe, read_memory_view(fs, probe), options);
    for (const auto& n : plan.nodes)
        if (!fs.exists(node_pool_dir(n.node, plan.page_size_kb) + "/nr_hugepages"))
            throw UnsupportedError("this kernel has no per-node huge page files (" +
                                   node_pool_dir(n.node, plan.page_size_kb) + ")");

    SweepResult result;
    result.plan = plan;
    result.probe = to_json(probe);
    result.started_at = utc_now();
    result.warnings = plan.warnings;
    for (const auto& p : plan.points)
        result.points.push_back({p.phase, p.threads_per_node, p.total_threads, p.oversubscribed,
                                 {}, {}, 0});

    // Declared before the lock and the pool guard: destroyed after them, so signals stay
    // blocked until the pools are back.
    SignalGuard signals;
    auto check_signals = [&] {
        if (int sig = signals.received()) throw SweepInterrupted(sig);
    };
    RunLock lock(runtime_dir);
    if (auto recovered = recover_from_state_file(fs, lock)) {
        if (progress)
            progress->on_note("restored huge page pools left by an interrupted sweep (pid " +
                              std::to_string(recovered->state.pid) +
                              "): " + recovered->report.summary());
        if (recovered->report.writes_failed)
            throw RuntimeError("cannot restore the pools saved in " +
                               state_file_path(runtime_dir).string() + ": " +
                               recovered->report.summary());
    }
    {
        PoolGuard guard(fs, lock, {plan.page_size_kb}, "sweep");
        Binder binder;
        Engine engine(fs, plan, binder, guard.saved_pool(plan.page_size_kb).nr_overcommit_hugepages);
        auto started = Clock::now();
        auto has = [&](Phase p) {
            return std::find(options.phases.begin(), options.phases.end(), p) !=
                   options.phases.end();
        };

        int warm_n = 1;
        int min_hw = plan.nodes.front().hardware_threads;
        for (const auto& n : plan.nodes) min_hw = std::min(min_hw, n.hardware_threads);
        for (int n : options.threads_per_node)
            if (n <= min_hw) warm_n = std::max(warm_n, n);
        // Warm-up: the zero pool is faulted once so that in a VM the host has backed it
        // (KERNEL-FACTS.md), and every phase runs once untimed.
        if (has(Phase::zero)) {
            for (auto& w : engine.grow_zero_pool()) result.warnings.push_back(w);
            check_signals();
        }
        for (Phase phase : {Phase::zero, Phase::alloc, Phase::grow}) {
            if (!has(phase)) continue;
            engine.run(phase, phase == Phase::grow ? 1 : warm_n);
            check_signals();
        }

        std::vector<std::size_t> order;
        for (int r = 0; r < options.repetitions; ++r)
            for (std::size_t i = 0; i < result.points.size(); ++i) order.push_back(i);
        shuffle_in_place(order, options.seed);

        auto timed_start = Clock::now();
        int done = 0;
        for (std::size_t index : order) {
            check_signals();
            PointResult& point = result.points[index];
            Repetition rep = engine.run(point.phase, point.threads_per_node);
            point.samples_seconds.push_back(rep.run.wall_seconds);
            std::vector<double> per_thread;
            for (const auto& t : rep.run.threads) per_thread.push_back(t.seconds);
            point.thread_seconds.push_back(std::move(per_thread));
            point.shortfall_pages = std::max(point.shortfall_pages, rep.shortfall_pages);
            ++done;
            auto now = Clock::now();
            result.elapsed_seconds = std::chrono::duration<double>(now - started).count();
            if (progress) {
                SweepProgress p;
                p.done = done;
                p.total = static_cast<int>(order.size());
                p.elapsed_seconds = result.elapsed_seconds;
                double timed = std::chrono::duration<double>(now - timed_start).count();
                p.remaining_seconds = timed / done * (p.total - done);
                p.phase = point.phase;
                p.threads_per_node = point.threads_per_node;
                progress->on_repetition(p, result);
            }
        }
        check_signals();
        RestoreReport report = guard.restore();
        if (!report.problems.empty())
            result.warnings.push_back("restoring the pools: " + report.summary());
        if (report.writes_failed)
            throw RuntimeError("could not restore the huge page pools: " + report.summary() +
                               "; the saved values stay in " +
                               state_file_path(runtime_dir).string() +
                               ": run 'hugetune restore'");
        result.elapsed_seconds =
            std::chrono::duration<double>(Clock::now() - started).count();
    }
    check_signals();
    for (const auto& p : result.points)
        if (p.shortfall_pages > 0)
            result.warnings.push_back(std::string(phase_name(p.phase)) + " at " +
                                      std::to_string(p.threads_per_node) +
                                      " thread(s) per node: " + std::to_string(p.shortfall_pages) +
                                      " page(s) not obtained on the intended node");
    result.complete = true;
    return result;
}

}  // namespace hugetune
