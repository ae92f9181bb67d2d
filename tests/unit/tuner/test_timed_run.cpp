// run_timed on the live machine's threads (no root needed): every thread prepares before the
// release, works after it, and tears down only after the last one finished; an error anywhere
// comes back once every thread has been joined.
#include <doctest/doctest.h>

#include <sched.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "model/errors.hpp"
#include "tuner/sweep/workers.hpp"

using namespace hugetune;

namespace {

// A CPU this process may run on (a container may not offer CPU 0).
int allowed_cpu() {
    cpu_set_t set;
    CPU_ZERO(&set);
    REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set))
            return cpu;
    FAIL("no CPU in this process's affinity mask");
    return 0;
}

struct Events {
    std::mutex lock;
    std::vector<std::string> seen;
    void add(const std::string& e) {
        std::lock_guard<std::mutex> hold(lock);
        seen.push_back(e);
    }
    long count(const std::string& e) const { return std::count(seen.begin(), seen.end(), e); }
    // Index of the last `before` is below the first `after`.
    bool all_before(const std::string& before, const std::string& after) const {
        std::size_t last = 0, first = seen.size();
        for (std::size_t i = 0; i < seen.size(); ++i) {
            if (seen[i] == before)
                last = i;
            if (seen[i] == after && first == seen.size())
                first = i;
        }
        return last < first;
    }
};

std::vector<ThreadTask> tasks(Events& events, int threads) {
    std::vector<ThreadTask> out(static_cast<std::size_t>(threads));
    int cpu = allowed_cpu();
    for (int i = 0; i < threads; ++i) {
        ThreadTask& t = out[static_cast<std::size_t>(i)];
        t.cpu = cpu;
        t.prepare = [&events] { events.add("prepare"); };
        t.work = [&events, i] {
            events.add("work");
            return static_cast<std::uint64_t>(10 + i);
        };
        t.finish = [&events] { events.add("finish"); };
    }
    return out;
}

}  // namespace

TEST_CASE("run_timed: prepare, release, work, after_done, then teardown") {
    Binder binder;
    Events events;
    auto work = tasks(events, 3);
    TimedRun run = run_timed(
        binder, work, [&] { events.add("release"); }, [&] { events.add("done"); });
    CHECK(events.count("prepare") == 3);
    CHECK(events.count("work") == 3);
    CHECK(events.count("finish") == 3);
    CHECK(events.all_before("prepare", "release"));
    CHECK(events.all_before("release", "work"));
    CHECK(events.all_before("work", "done"));
    CHECK(events.all_before("done", "finish"));
    REQUIRE(run.threads.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(run.threads[i].pages == 10 + i);
        CHECK(run.threads[i].seconds <= run.wall_seconds);
    }
}

TEST_CASE("run_timed: an error in one thread's work comes back after every thread tore down") {
    Binder binder;
    Events events;
    auto work = tasks(events, 3);
    work[1].work = []() -> std::uint64_t { throw RuntimeError("no page"); };
    CHECK_THROWS_WITH_AS(run_timed(binder, work, nullptr, nullptr), "no page", RuntimeError);
    CHECK(events.count("work") == 2);
    CHECK(events.count("finish") == 3);
}

TEST_CASE("run_timed: a thread that cannot prepare skips its work; the error comes back") {
    Binder binder;
    Events events;
    auto work = tasks(events, 2);
    work[0].prepare = [] { throw RuntimeError("cannot map"); };
    CHECK_THROWS_WITH_AS(run_timed(binder, work, nullptr, nullptr), "cannot map", RuntimeError);
    CHECK(events.count("work") == 1);
    CHECK(events.count("finish") == 2);
}

TEST_CASE("run_timed: a failure before the release runs no work at all") {
    Binder binder;
    Events events;
    auto work = tasks(events, 2);
    CHECK_THROWS_WITH_AS(
        run_timed(
            binder, work, [] { throw RuntimeError("cannot read a counter"); }, nullptr),
        "cannot read a counter", RuntimeError);
    CHECK(events.count("prepare") == 2);
    CHECK(events.count("work") == 0);
    CHECK(events.count("finish") == 2);
}

TEST_CASE("run_timed: an error after the work comes back after teardown, the threads' first") {
    Binder binder;
    Events events;
    auto work = tasks(events, 2);
    auto counter_fails = [] { throw RuntimeError("counter after"); };
    CHECK_THROWS_WITH_AS(run_timed(binder, work, nullptr, counter_fails), "counter after",
                         RuntimeError);
    CHECK(events.count("finish") == 2);
    work[1].finish = [] { throw RuntimeError("munmap"); };
    CHECK_THROWS_WITH_AS(run_timed(binder, work, nullptr, counter_fails), "munmap", RuntimeError);
}
