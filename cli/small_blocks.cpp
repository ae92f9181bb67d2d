// The hugetune binary's operator new and delete: each thread keeps the small blocks it frees
// (up to kSmallBlockMax bytes, in classes of 16, at most kSmallBlocksHeldMax bytes a thread)
// and takes them again before asking malloc, which gets every other block as before.
//
// Why: reading a report builds a document of about 1,500 small blocks (its members, keys,
// strings and arrays) and frees them all before the next report, on each preparing thread of
// `fleet ingest`. glibc keeps only 7 freed blocks of a size per thread at hand; the rest went
// through its arena, whose large requests (a report's text) merged the small free blocks again
// before the next document asked for them, and the allocator took about 17 % of an ingest's
// CPU (docs/measurements/fleet-ingest-profile-2026-12-04-binary.txt). docs/fleet.md "Ingest".
//
// Which blocks: a block's class comes from its usable size as glibc reports it
// (malloc_usable_size), so a block freed here may have come from any allocation of the same
// chunk size, and a block given out for n bytes is never smaller than n. In use only with glibc
// on a 64-bit machine, where a heap chunk's usable size is its size less 8 bytes and chunks are
// multiples of 16. The sanitizer and fuzzing builds leave this file out
// (CMakeLists.txt): their own operator new must see every block to find its misuse.
#include "cli/small_blocks.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__GLIBC__) && UINTPTR_MAX == UINT64_MAX
#include <malloc.h>
#define HUGETUNE_SMALL_BLOCKS 1
#endif

namespace hugetune::cli {

#ifndef HUGETUNE_SMALL_BLOCKS

void keep_small_blocks(bool) {}

std::size_t small_block_bytes_held() {
    return 0;
}

std::size_t small_block_bytes_given_back() {
    return 0;
}

#else

namespace {

constexpr std::size_t kStep = 16;
constexpr std::size_t kClasses = kSmallBlockMax / kStep;
constexpr std::size_t kChunkHeader = 8;  // glibc: a heap chunk's usable size is its size less 8

struct FreeBlock {
    FreeBlock* next;
};

// Trivially destructible, so reaching it costs no check of whether it was made.
struct Cache {
    FreeBlock* heads[kClasses];
    std::size_t held;
    bool registered;  // its release at the thread's end is registered
    bool released;    // the thread is ending: every block goes to free() from now on
    bool off;         // keep_small_blocks(false): none kept, none taken
};
constinit thread_local Cache cache{};
constinit std::atomic<std::size_t> given_back{0};

void release_all() noexcept {
    for (auto& head : cache.heads)
        while (head) {
            FreeBlock* next = head->next;
            std::free(head);
            head = next;
        }
    given_back.fetch_add(cache.held, std::memory_order_relaxed);
    cache.held = 0;
}

// Made at a thread's first kept block; its end gives the thread's blocks back.
struct Release {
    Release() = default;
    Release(const Release&) = delete;
    Release& operator=(const Release&) = delete;
    ~Release() {
        cache.released = true;
        release_all();
    }
};
thread_local Release release;

// The class of a freed block, or kClasses when it is not one to keep.
std::size_t class_of(void* p) noexcept {
    const std::size_t usable = malloc_usable_size(p);
    if (usable < kStep + kChunkHeader || usable > kSmallBlockMax + kChunkHeader ||
        (usable - kChunkHeader) % kStep != 0)
        return kClasses;
    return (usable - kChunkHeader) / kStep - 1;
}

void* allocate(std::size_t n) {
    for (;;) {
        if (void* p = std::malloc(n))
            return p;
        const std::new_handler handler = std::get_new_handler();
        if (!handler)
            throw std::bad_alloc();
        handler();
    }
}

}  // namespace

void keep_small_blocks(bool keep) {
    cache.off = !keep;
    if (!keep)
        release_all();
}

std::size_t small_block_bytes_held() {
    return cache.held;
}

std::size_t small_block_bytes_given_back() {
    return given_back.load(std::memory_order_relaxed);
}

#endif

}  // namespace hugetune::cli

#ifdef HUGETUNE_SMALL_BLOCKS

// The replaceable operator new and delete of the C++ library ([new.delete.single]); its array,
// nothrow and sized forms call these. The aligned forms are left as they are: they use
// aligned_alloc and free, apart from these.
void* operator new(std::size_t n) {
    using namespace hugetune::cli;
    if (n <= kSmallBlockMax && !cache.off) {
        const std::size_t c = n == 0 ? 0 : (n - 1) / kStep;
        if (FreeBlock* block = cache.heads[c]) {
            cache.heads[c] = block->next;
            cache.held -= (c + 1) * kStep;
            return block;
        }
        n = (c + 1) * kStep;  // a whole class, so the block can serve any request of it later
    }
    return allocate(n);
}

void operator delete(void* p) noexcept {
    using namespace hugetune::cli;
    if (!p)
        return;
    if (!cache.released && !cache.off) {
        const std::size_t c = class_of(p);
        const std::size_t bytes = (c + 1) * kStep;
        if (c < kClasses && cache.held + bytes <= kSmallBlocksHeldMax) {
            if (!cache.registered) {
                cache.registered = true;
                static_cast<void>(&release);  // made now, so ended with the thread
            }
            auto* block = static_cast<FreeBlock*>(p);
            block->next = cache.heads[c];
            cache.heads[c] = block;
            cache.held += bytes;
            return;
        }
    }
    std::free(p);
}

void operator delete(void* p, std::size_t) noexcept {
    operator delete(p);
}

#endif
