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

// The bytes of the blocks this thread keeps now, and of those every ended thread gave back to
// malloc at its end: both 0 where the C library is not glibc on a 64-bit machine (the default
// operator new then).
std::size_t small_block_bytes_held();
std::size_t small_block_bytes_given_back();

}  // namespace hugetune::cli
