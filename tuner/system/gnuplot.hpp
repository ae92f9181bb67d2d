// Rendering a chart with gnuplot, run from an argument vector, without ever leaving a
// half-written picture: the caller supplies the script, this module owns the files.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace hugetune {

struct GnuplotResult {
    bool rendered = false;              // `output` was written by gnuplot
    std::filesystem::path script_path;  // set when gnuplot was missing or failed
    std::string message;                // one line for the user
};

// `script_for(path)`: a self-contained gnuplot script that draws into `path`.
using GnuplotScriptFor = std::function<std::string(const std::filesystem::path&)>;

// Renders into `output` atomically: gnuplot draws into a temporary file in the same directory
// that is then renamed. Without gnuplot (or when it fails) the script drawing into `output` is
// written next to it as <output>.gp, so it can be rendered elsewhere with `gnuplot <output>.gp`.
GnuplotResult render_with_gnuplot(const GnuplotScriptFor& script_for,
                                  const std::filesystem::path& output);

}  // namespace hugetune
