#include "tuner/system/gnuplot.hpp"

#include <stdlib.h>

#include <fstream>
#include <optional>
#include <sstream>

#include "model/errors.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/process.hpp"

namespace hugetune {

namespace fs = std::filesystem;

namespace {

// A directory only this process can write in, removed with everything gnuplot left there.
struct PrivateDir {
    fs::path path;
    explicit PrivateDir(const fs::path& next_to) {
        const fs::path dir = next_to.parent_path().empty() ? fs::path(".") : next_to.parent_path();
        std::string tmpl = (dir / ("." + next_to.filename().string() + ".tmp.XXXXXX")).string();
        if (mkdtemp(tmpl.data()) == nullptr)
            throw RuntimeError("cannot create a temporary directory in " + dir.string());
        path = tmpl;
    }
    ~PrivateDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    PrivateDir(const PrivateDir&) = delete;
    PrivateDir& operator=(const PrivateDir&) = delete;
};

std::optional<std::string> read_picture(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!in || bytes.str().empty())
        return std::nullopt;
    return bytes.str();
}

// gnuplot's first error line, or "" when it drew the picture into `output`.
std::string render_into(const GnuplotScriptFor& script_for, const fs::path& output) {
    PrivateDir scratch(output);
    const fs::path picture = scratch.path / "picture";
    const fs::path script = scratch.path / "picture.gp";
    write_file_atomically(script, script_for(picture));
    auto r = run_program({"gnuplot", script.string()});
    auto bytes = r.exit_code == 0 ? read_picture(picture) : std::nullopt;
    if (!bytes) {
        std::string why = r.err.substr(0, r.err.find('\n'));
        return why.empty() ? "exit " + std::to_string(r.exit_code) : why;
    }
    write_file_atomically(output, *bytes);
    return "";
}

}  // namespace

fs::path gnuplot_script_path(const fs::path& output) {
    fs::path script_path = output;
    script_path += ".gp";
    return script_path;
}

GnuplotResult render_with_gnuplot(const GnuplotScriptFor& script_for, const fs::path& output) {
    GnuplotResult result;
    const fs::path script_path = gnuplot_script_path(output);
    if (program_exists("gnuplot")) {
        const std::string failure = render_into(script_for, output);
        if (failure.empty()) {
            result.rendered = true;
            result.message = "plot written to " + output.string();
            return result;
        }
        result.message = "gnuplot failed (" + failure + "); wrote " + script_path.string() +
                         ", render it with: gnuplot " + script_path.string();
    } else {
        result.message = "gnuplot is not installed (Debian: apt-get install gnuplot-nox); wrote " +
                         script_path.string() + ", render it elsewhere with: gnuplot " +
                         script_path.string();
    }
    write_file_atomically(script_path, script_for(output));
    result.script_path = script_path;
    return result;
}

}  // namespace hugetune
