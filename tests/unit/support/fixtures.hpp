// Paths of the committed fixture trees and test data.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
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

// A fresh directory of the test's own, removed with all it holds when the test is done.
struct ScratchDir {
    std::filesystem::path path;
    ScratchDir() {
        std::string name = (std::filesystem::temp_directory_path() / "hugetune-XXXXXX").string();
        if (mkdtemp(name.data()) == nullptr)
            throw std::runtime_error("cannot make a directory like " + name);
        path = name;
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
};

}  // namespace hugetune::test
