#include "tuner/system/gnuplot.hpp"

#include <unistd.h>

#include "tuner/system/atomic_file.hpp"
#include "tuner/system/process.hpp"

namespace hugetune {

namespace fs = std::filesystem;

GnuplotResult render_with_gnuplot(const GnuplotScriptFor& script_for, const fs::path& output) {
    GnuplotResult result;
    fs::path dir = output.parent_path().empty() ? fs::path(".") : output.parent_path();
    fs::path script_path = output;
    script_path += ".gp";
    if (program_exists("gnuplot")) {
        fs::path tmp = dir / ("." + output.filename().string() + ".tmp" + std::to_string(getpid()));
        fs::path tmp_script = tmp;
        tmp_script += ".gp";
        write_file_atomically(tmp_script, script_for(tmp));
        auto r = run_program({"gnuplot", tmp_script.string()});
        std::error_code ec;
        fs::remove(tmp_script, ec);
        if (r.exit_code == 0 && fs::exists(tmp, ec) && fs::file_size(tmp, ec) > 0) {
            fs::rename(tmp, output, ec);
            if (!ec) {
                result.rendered = true;
                result.message = "plot written to " + output.string();
                return result;
            }
        }
        fs::remove(tmp, ec);
        std::string why = r.err.substr(0, r.err.find('\n'));
        result.message = "gnuplot failed (" +
                         (why.empty() ? "exit " + std::to_string(r.exit_code) : why) + "); wrote " +
                         script_path.string() + ", render it with: gnuplot " + script_path.string();
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
