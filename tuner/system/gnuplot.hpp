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

// Where the script drawing into `output` is written when gnuplot is missing or fails.
std::filesystem::path gnuplot_script_path(const std::filesystem::path& output);

// Renders into `output` atomically: gnuplot draws inside a private temporary directory next to
// it (no name another user could plant a link at), and the picture is then written with
// write_file_atomically, which refuses a link at `output`. Without gnuplot (or when it fails)
// the script drawing into `output` is written to gnuplot_script_path(output), so it can be
// rendered elsewhere.
GnuplotResult render_with_gnuplot(const GnuplotScriptFor& script_for,
                                  const std::filesystem::path& output);

}  // namespace hugetune
