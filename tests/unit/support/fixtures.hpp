// Paths of the committed fixture trees and test data.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hugetune::test {

inline std::filesystem::path source_dir() {
    return HUGETUNE_SOURCE_DIR;
}
inline std::filesystem::path fixture(const std::string& name) {
    return source_dir() / "tests" / "fixtures" / name;
}

// The whole file as text; empty when it cannot be read (the check that follows fails).
inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace hugetune::test
