// Paths of the committed fixture trees and test data.
#pragma once

#include <filesystem>
#include <string>

namespace hugetune::test {

inline std::filesystem::path source_dir() {
    return HUGETUNE_SOURCE_DIR;
}
inline std::filesystem::path fixture(const std::string& name) {
    return source_dir() / "tests" / "fixtures" / name;
}

}  // namespace hugetune::test
