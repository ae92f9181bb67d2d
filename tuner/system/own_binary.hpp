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

// The running binary as 16 hex digits of its own bytes (FNV-1a over 64-bit words, a byte at the
// end taken alone), read once: an answer kept by another build (another model) is not taken,
// and hosts running the same build share what they keep. Read in blocks: a sanitizer build is
// 100 MB. Empty when it cannot be read.
const std::string& own_binary_digest();

// The nearest existing directory of `target_path` in the tree `root` (a target path, opened
// inside it) when it lies on a file system in memory (tmpfs, ramfs), lost at the next boot;
// nothing when it is on persistent storage or cannot be told.
std::optional<std::string> memory_filesystem_of(const RootDir& root, std::string_view target_path);

}  // namespace hugetune
