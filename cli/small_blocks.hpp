// The hugetune binary's operator new and delete keep each thread's small freed blocks for that
// thread to take again (cli/small_blocks.cpp; not in the sanitizer and fuzzing builds). What
// follows is for its tests.
#pragma once

#include <cstddef>

namespace hugetune::cli {

// Blocks up to this many bytes are kept, in classes of 16 bytes.
inline constexpr std::size_t kSmallBlockMax = 256;
// What one thread keeps at most; freed blocks past it go back to malloc.
inline constexpr std::size_t kSmallBlocksHeldMax = std::size_t{1} << 20;

// Whether the calling thread keeps the small blocks it frees; every thread does at first. A
// thread that frees many blocks other threads made, and holds its own allocations long, turns
// it off: taken again by it, those blocks would hold its long-lived data among the other
// threads' pages (fleet ingest's storing thread: an ingest of 100,000 reports peaked at 104 to
// 115 MB with it on, 79 to 83 MB with it off, 84 MB before any block was kept;
// docs/measurements/fleet-ingest-100k-memory-2026-12-04.txt). Off, the thread's kept blocks go
// back to malloc at once. In a program without the binary's operator new (the tests of cli/, the
// sanitizer builds) it does nothing (cli/small_blocks_default.cpp).
void keep_small_blocks(bool keep);

// The bytes of the blocks this thread keeps now, and of those every ended thread gave back to
// malloc at its end: both 0 where the C library is not glibc on a 64-bit machine (the default
// operator new then).
std::size_t small_block_bytes_held();
std::size_t small_block_bytes_given_back();

}  // namespace hugetune::cli
