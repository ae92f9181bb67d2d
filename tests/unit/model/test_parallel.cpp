// The one fan-out of independent work over threads: every item once, the first error raised
// again by the caller after every thread stopped.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "model/parallel.hpp"

using namespace hugetune::model;

TEST_CASE("parallel_for: each item runs exactly once, whatever the thread count") {
    for (std::size_t threads : {1u, 2u, 3u, 8u, 40u}) {
        for (std::size_t items : {0u, 1u, 2u, 7u, 1000u}) {
            std::vector<std::atomic<int>> runs(items);
            parallel_for(items, threads, [&](std::size_t i) { ++runs[i]; });
            for (std::size_t i = 0; i < items; ++i)
                CHECK_MESSAGE(runs[i] == 1, "item " << i << " of " << items << " on " << threads);
        }
    }
}

TEST_CASE("parallel_for: an item's error reaches the caller after the threads stopped") {
    // A thread still running at the throw would end the program in std::thread's destructor.
    std::atomic<int> ran{0};
    const auto work = [&](std::size_t i) {
        ++ran;
        if (i == 37)
            throw std::runtime_error("item 37");
    };
    CHECK_THROWS_WITH_AS(parallel_for(500, 4, work), "item 37", std::runtime_error);
    CHECK(ran >= 38 - 3);  // the items before it, less those the other threads still held
}

TEST_CASE("parallel_for: on one thread no item starts after the one that failed") {
    std::vector<std::size_t> ran;
    const auto work = [&](std::size_t i) {
        ran.push_back(i);
        if (i == 3)
            throw std::length_error("full");
    };
    CHECK_THROWS_AS(parallel_for(10, 1, work), std::length_error);
    CHECK(ran == std::vector<std::size_t>{0, 1, 2, 3});
}

TEST_CASE("threads_for: one thread per share of items, within the limit") {
    CHECK(threads_for(0, 64) == 1);
    CHECK(threads_for(63, 64) == 1);
    CHECK(threads_for(128, 64, 8) == 2);
    CHECK(threads_for(100000, 64, 8) == 8);
    CHECK(threads_for(100000, 64, 1) == 1);
    CHECK(threads_for(10, 0, 4) == 4);  // no share given: every item may have its thread
    CHECK(threads_for(1u << 20, 1) >= 1);
}
