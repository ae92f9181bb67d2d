#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/plot_output.hpp"
#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tests/unit/support/plot_data.hpp"
#include "tuner/system/process.hpp"

using namespace hugetune;
using hugetune::cli::render_plot;
using hugetune::test::sample_data;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("hugetune-plot-" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("plot: gnuplot renders an SVG atomically") {
    REQUIRE_MESSAGE(program_exists("gnuplot"),
                    "gnuplot-nox is a test dependency: run make test-deps");
    TempDir dir;
    auto out = dir.path / "curve.svg";
    auto r = render_plot(sample_data(), out);
    REQUIRE_MESSAGE(r.rendered, r.message);
    auto svg = hugetune::test::read_text(out);
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(svg.find("recommended N=8") != std::string::npos);
    // Nothing but the plot is left in the directory.
    int files = 0;
    for (auto& e : fs::directory_iterator(dir.path)) {
        (void)e;
        ++files;
    }
    CHECK(files == 1);
}

TEST_CASE("plot: gnuplot draws the breakdown panel's bars, key and notes") {
    REQUIRE_MESSAGE(program_exists("gnuplot"),
                    "gnuplot-nox is a test dependency: run make test-deps");
    TempDir dir;
    auto out = dir.path / "breakdown.svg";
    auto r = render_plot(hugetune::test::sample_data_with_breakdown(), out);
    REQUIRE_MESSAGE(r.rendered, r.message);
    auto svg = hugetune::test::read_text(out);
    for (const char* text :
         {"where the predicted boot allocation goes", "allocation proper",
          "vmemmap optimisation (HVO), measured by the HVO pass", "zeroing (init_on_alloc)",
          "predicted, not split", "what-if prediction", "interval", "not predicted",
          "init_on_alloc=0", "hugetlb_free_vmemmap=on", "recommended N=8"})
        CHECK_MESSAGE(svg.find(text) != std::string::npos, std::string(text));
}

TEST_CASE("plot: without gnuplot the script is written next to the file") {
    TempDir dir;
    const char* old = std::getenv("PATH");
    std::string saved = old ? old : "";
    setenv("PATH", dir.path.c_str(), 1);  // an empty directory: no gnuplot
    auto out = dir.path / "curve.png";
    auto r = render_plot(sample_data(), out);
    setenv("PATH", saved.c_str(), 1);
    CHECK_FALSE(r.rendered);
    CHECK(r.message.find("gnuplot is not installed") != std::string::npos);
    CHECK(r.script_path == dir.path / "curve.png.gp");
    auto script = hugetune::test::read_text(r.script_path);
    CHECK(script.find("set output '" + out.string() + "'") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
}

TEST_CASE("plot: a link at the output is refused and its target left alone") {
    REQUIRE(program_exists("gnuplot"));
    TempDir dir;
    std::ofstream(dir.path / "theirs.svg") << "theirs";
    fs::create_symlink(dir.path / "theirs.svg", dir.path / "curve.svg");
    CHECK_THROWS_AS(render_plot(sample_data(), dir.path / "curve.svg"), UsageError);
    CHECK(fs::is_symlink(dir.path / "curve.svg"));
    CHECK(hugetune::test::read_text(dir.path / "theirs.svg") == "theirs");
}

TEST_CASE("plot: gnuplot never draws through a link planted next to the output") {
    REQUIRE(program_exists("gnuplot"));
    TempDir dir;
    std::ofstream(dir.path / "theirs") << "theirs";
    // The temporary name an earlier version used, predictable from the process id.
    fs::create_symlink(dir.path / "theirs",
                       dir.path / (".curve.svg.tmp" + std::to_string(::getpid())));
    auto r = render_plot(sample_data(), dir.path / "curve.svg");
    REQUIRE_MESSAGE(r.rendered, r.message);
    CHECK(hugetune::test::read_text(dir.path / "theirs") == "theirs");
    CHECK(hugetune::test::read_text(dir.path / "curve.svg").find("<svg") != std::string::npos);
}
