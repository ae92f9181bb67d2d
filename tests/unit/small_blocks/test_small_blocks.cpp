// The hugetune binary's operator new and delete (cli/small_blocks.cpp), linked into this test
// program as into the binary: blocks kept per thread and taken again, never smaller than asked,
// never given out twice, bounded, given back at a thread's end, freed on another thread.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli/small_blocks.hpp"

// Where the binary keeps blocks (cli/small_blocks.cpp): glibc on a 64-bit machine.
#if defined(__GLIBC__) && UINTPTR_MAX == UINT64_MAX
#include <malloc.h>
#define KEEPS_BLOCKS 1
#endif

using hugetune::cli::keep_small_blocks;
using hugetune::cli::kSmallBlockMax;
using hugetune::cli::kSmallBlocksHeldMax;
using hugetune::cli::small_block_bytes_given_back;
using hugetune::cli::small_block_bytes_held;

namespace {

// A block from operator new, filled with its own byte, checked whole before it goes.
struct Filled {
    unsigned char* p;
    std::size_t n;
    unsigned char mark;
};

bool intact(const Filled& b) {
    return std::all_of(b.p, b.p + b.n, [&](unsigned char c) { return c == b.mark; });
}

}  // namespace

#ifdef KEEPS_BLOCKS
TEST_CASE("a freed small block is kept by its thread and given again for its class") {
    void* a = ::operator new(40);
    // Its class is that of its chunk, which glibc may give larger than asked: 48 bytes or more.
    const std::size_t kept = malloc_usable_size(a) - 8;
    REQUIRE(kept >= 48);
    REQUIRE(kept <= kSmallBlockMax);
    const std::size_t before = small_block_bytes_held();
    ::operator delete(a);
    CHECK(small_block_bytes_held() == before + kept);
    void* b = ::operator new(kept);
    CHECK(b == a);
    CHECK(small_block_bytes_held() == before);
    ::operator delete(b);

    // Past the largest class (its chunk too): straight back to malloc.
    const std::size_t held = small_block_bytes_held();
    void* large = ::operator new(2 * kSmallBlockMax);
    ::operator delete(large);
    CHECK(small_block_bytes_held() == held);
}
#endif

TEST_CASE("blocks of every small size are never given out twice nor smaller than asked") {
    std::mt19937 random(7);
    std::vector<Filled> live;
    unsigned char mark = 0;
    for (int round = 0; round < 20000; ++round) {
        if (live.empty() || random() % 3 != 0) {
            const std::size_t n = random() % (kSmallBlockMax + 64);
            auto* p = static_cast<unsigned char*>(::operator new(n));
            std::memset(p, ++mark, n);
            live.push_back({p, n, mark});
        } else {
            const std::size_t at = random() % live.size();
            REQUIRE(intact(live[at]));
            ::operator delete(live[at].p);
            live[at] = live.back();
            live.pop_back();
        }
    }
    for (const auto& b : live) {
        REQUIRE(intact(b));
        ::operator delete(b.p);
    }
    CHECK(small_block_bytes_held() <= kSmallBlocksHeldMax);
}

#ifdef KEEPS_BLOCKS
TEST_CASE("a thread keeps at most its bound, and gives its blocks back when it ends") {
    const std::size_t given_back = small_block_bytes_given_back();
    std::size_t held_in_thread = 0;
    std::thread worker([&] {
        std::vector<void*> blocks;
        for (std::size_t i = 0; i < 2 * kSmallBlocksHeldMax / 64; ++i)
            blocks.push_back(::operator new(64));
        for (void* p : blocks)
            ::operator delete(p);
        held_in_thread = small_block_bytes_held();
    });
    worker.join();
    CHECK(held_in_thread > kSmallBlocksHeldMax - kSmallBlockMax);
    CHECK(held_in_thread <= kSmallBlocksHeldMax);
    // What it held, and what the thread's own ending freed after (std::thread's state).
    const std::size_t back = small_block_bytes_given_back() - given_back;
    CHECK(back >= held_in_thread);
    CHECK(back <= kSmallBlocksHeldMax);
}
#endif

TEST_CASE("blocks made on one thread and freed on another, as an ingest's documents are") {
    std::vector<std::unique_ptr<std::string>> made(5000);
    std::thread maker([&] {
        for (std::size_t i = 0; i < made.size(); ++i)
            made[i] = std::make_unique<std::string>(i % 200 + 16, static_cast<char>('a' + i % 26));
    });
    maker.join();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < made.size(); ++i)
        bad += *made[i] != std::string(i % 200 + 16, static_cast<char>('a' + i % 26));
    CHECK(bad == 0);
    made.clear();  // freed here, kept by this thread up to its bound
    std::vector<std::string> again;
    for (int i = 0; i < 5000; ++i)
        again.emplace_back(100, 'x');
    CHECK(std::all_of(again.begin(), again.end(),
                      [](const std::string& s) { return s == std::string(100, 'x'); }));
}

#ifdef KEEPS_BLOCKS
TEST_CASE("a thread that turns keeping off gives back what it kept and keeps nothing more") {
    std::size_t held_before = 0, held_off = 0, held_after = 0, given = 0;
    bool same = true;
    std::thread worker([&] {
        std::vector<void*> blocks;
        for (int i = 0; i < 100; ++i)
            blocks.push_back(::operator new(64));
        for (void* p : blocks)
            ::operator delete(p);
        held_before = small_block_bytes_held();
        const std::size_t back = small_block_bytes_given_back();
        keep_small_blocks(false);
        given = small_block_bytes_given_back() - back;
        void* a = ::operator new(64);
        ::operator delete(a);
        held_off = small_block_bytes_held();
        keep_small_blocks(true);
        void* b = ::operator new(64);
        ::operator delete(b);
        void* c = ::operator new(64);
        same = c == b;  // kept again, and taken again
        ::operator delete(c);
        held_after = small_block_bytes_held();
    });
    worker.join();
    CHECK(held_before >= 100 * 64);
    CHECK(given == held_before);
    CHECK(held_off == 0);
    CHECK(held_after > 0);
    CHECK(same);
}
#endif
