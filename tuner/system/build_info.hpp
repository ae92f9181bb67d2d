// What this binary was built from: the project version and the commit, for `--version` and
// the `tool` block of the report and the sweep file.
#pragma once

#include <string>
#include <string_view>

namespace hugetune {

std::string_view tool_version();
// The short commit hash the build was configured from; "unknown" outside a git tree.
std::string_view tool_commit();
// "0.2.0 (abc1234)", as `hugetune --version` prints it after the name.
std::string tool_version_line();

}  // namespace hugetune
