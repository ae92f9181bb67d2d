// This process's own executable and the file system a path lies on: what the boot sweep and the
// fleet's kept answers need to know about where they run, read in one place.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "tuner/system/root_dir.hpp"

namespace hugetune {

// The running binary (/proc/self/exe), else /usr/bin/hugetune when the link cannot be read.
std::filesystem::path own_binary_path();

// The running binary as 16 hex digits, made once: an answer kept by another build (another
// model) is not taken, and hosts running the same build share what they keep. The first 64 bits
// of the build ID the linker wrote into it (a hash of the linked output, the same stripped or
// not), read from the program's headers in memory; for a binary linked without one, a digest of
// its own bytes (FNV-1a over 64-bit words of /proc/self/exe). Empty when neither can be had.
const std::string& own_binary_digest();

// The nearest existing directory of `target_path` in the tree `root` (a target path, opened
// inside it) when it lies on a file system in memory (tmpfs, ramfs), lost at the next boot;
// nothing when it is on persistent storage or cannot be told.
std::optional<std::string> memory_filesystem_of(const RootDir& root, std::string_view target_path);

// A SKU of 100,000 hosts holds hundreds of megabytes of small blocks while its answer is computed,
// and the kernel maps each 4 KiB page of it on first touch: glibc's malloc asks for transparent
// huge pages when GLIBC_TUNABLES says glibc.malloc.hugetlb=1, which only the environment a program
// starts with can say (docs/fleet.md "Answers kept").
//
// Runs this program again, the same arguments, with glibc.malloc.hugetlb=1 added to
// GLIBC_TUNABLES, before anything is opened or written. Returns without doing so, and nothing
// changed, where that cannot help or cannot be done: a C library other than glibc, a sanitizer
// build, the kernel's transparent huge pages set to never, GLIBC_TUNABLES already naming
// glibc.malloc.hugetlb (the user's choice, or this program run again), or the program not to
// be run again.
void run_again_with_huge_heap_pages(char** argv);

}  // namespace hugetune
