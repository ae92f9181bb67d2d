// Every file hugetune writes goes through write_file_atomically, and every output path a
// command takes is checked first by check_writable_path: links and special files are refused,
// a replaced file keeps its mode, and nothing is left behind.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/contained_dir.hpp"

using namespace hugetune;
namespace fs = std::filesystem;

namespace {

struct Scratch : test::ScratchDir {
    const fs::path& dir = path;
    int entries() const {
        int n = 0;
        for (const auto& e : fs::directory_iterator(dir)) {
            (void)e;
            ++n;
        }
        return n;
    }
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
}

mode_t mode_of(const fs::path& p) {
    struct stat st {};
    REQUIRE(stat(p.c_str(), &st) == 0);
    return st.st_mode & 0777;
}

std::string usage_message(const std::function<void()>& call) {
    try {
        call();
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(no UsageError)";
}

}  // namespace

TEST_CASE("write_file_atomically writes a new file 0644 and leaves nothing else") {
    Scratch s;
    write_file_atomically(s.dir / "report.json", "{}\n");
    CHECK(slurp(s.dir / "report.json") == "{}\n");
    CHECK(mode_of(s.dir / "report.json") == 0644);
    CHECK(s.entries() == 1);
}

TEST_CASE("write_file_atomically keeps the mode of the file it replaces") {
    Scratch s;
    spit(s.dir / "report.json", "old");
    fs::permissions(s.dir / "report.json", fs::perms(0640));
    write_file_atomically(s.dir / "report.json", "new");
    CHECK(slurp(s.dir / "report.json") == "new");
    CHECK(mode_of(s.dir / "report.json") == 0640);
    write_file_atomically(s.dir / "report.json", "newer", FileOwnership{0600, {}, {}});
    CHECK(mode_of(s.dir / "report.json") == 0600);
}

TEST_CASE("write_file_atomically refuses a symbolic link and leaves the link and its target") {
    Scratch s;
    spit(s.dir / "target.json", "theirs");
    fs::create_symlink(s.dir / "target.json", s.dir / "link.json");
    const auto message = usage_message([&] { write_file_atomically(s.dir / "link.json", "ours"); });
    CHECK(message.find((s.dir / "link.json").string() + " is a symbolic link") !=
          std::string::npos);
    CHECK(message.find("give the path of the file itself") != std::string::npos);
    CHECK(fs::is_symlink(s.dir / "link.json"));
    CHECK(slurp(s.dir / "target.json") == "theirs");
    CHECK(s.entries() == 2);
}

TEST_CASE("write_file_atomically refuses a dangling link and a special file") {
    Scratch s;
    fs::create_symlink(s.dir / "nowhere.json", s.dir / "dangling.json");
    CHECK(usage_message([&] {
              write_file_atomically(s.dir / "dangling.json", "x");
          }).find("is a symbolic link") != std::string::npos);
    CHECK_FALSE(fs::exists(s.dir / "nowhere.json"));
    REQUIRE(mkfifo((s.dir / "fifo").c_str(), 0600) == 0);
    CHECK(usage_message([&] {
              write_file_atomically(s.dir / "fifo", "x");
          }).find("is not a regular file") != std::string::npos);
    CHECK(fs::is_fifo(s.dir / "fifo"));
    CHECK(s.entries() == 2);
}

TEST_CASE("check_writable_path creates a file for real, so /proc is refused even for root") {
    const auto message = usage_message([] { check_writable_path("/proc/report.json", "--out"); });
    CHECK(message.find("--out: cannot create a file in /proc") != std::string::npos);
    CHECK(message.find("choose a writable directory") != std::string::npos);
}

TEST_CASE("check_writable_path names the option, the problem and the fix") {
    Scratch s;
    spit(s.dir / "target.json", "theirs");
    fs::create_symlink(s.dir / "target.json", s.dir / "link.json");
    CHECK(usage_message([&] {
              check_writable_path(s.dir / "link.json", "--report");
          }).find("--report: " + (s.dir / "link.json").string() + " is a symbolic link") !=
          std::string::npos);
    CHECK(usage_message([&] {
              check_writable_path(s.dir / "no" / "r.json", "--report");
          }).find("--report: directory " + (s.dir / "no").string() + " does not exist") !=
          std::string::npos);
    CHECK(usage_message([&] { check_writable_path(s.dir, "--plot"); }).find("is a directory") !=
          std::string::npos);
    check_writable_path(s.dir / "new.json", "--report");
    check_writable_path(s.dir / "target.json", "--report");
    // The probe file is gone and nothing was written.
    CHECK(s.entries() == 2);
    CHECK(slurp(s.dir / "target.json") == "theirs");
}

// A directory output (fleet export --out DIR) reaches its files from DIR's descriptor, one plain
// name at a time: a link planted in DIR leads neither a write nor a removal out of it.
TEST_CASE("contained directory: links inside it lead nowhere") {
    Scratch outside;
    Scratch s;
    spit(outside.dir / "victim.txt", "keep");
    const fs::path out = s.dir / "out";
    const auto dir = ContainedDir::open(out, "--out");
    fs::create_directory_symlink(outside.dir, out / "linked");
    spit(out / "plain.txt", "old");
    fs::create_symlink(outside.dir / "victim.txt", out / "file-link");

    CHECK(!dir.existing_subdirectory("linked"));
    CHECK(!dir.remove_file("linked"));
    CHECK(!dir.remove_file("file-link"));
    CHECK(!dir.remove_empty_subdirectory("linked"));
    CHECK(usage_message([&] {
              dir.subdirectory("linked");
          }).find("--out: " + (out / "linked").string() + " is a symbolic link") == 0);
    CHECK(usage_message([&] { dir.write_file("file-link", "x"); }).find("is a symbolic link") !=
          std::string::npos);
    CHECK(!dir.read_file("file-link"));
    CHECK(slurp(outside.dir / "victim.txt") == "keep");
    CHECK(fs::is_symlink(out / "linked"));
    CHECK(outside.entries() == 1);

    dir.subdirectory("sub").write_file("a.yml", "new");
    CHECK(slurp(out / "sub" / "a.yml") == "new");
    CHECK(dir.read_file("plain.txt") == "old");
    CHECK(dir.remove_file("plain.txt"));
    CHECK(!fs::exists(out / "plain.txt"));
    CHECK(!dir.remove_empty_subdirectory("sub"));
    CHECK(dir.existing_subdirectory("sub")->remove_file("a.yml"));
    CHECK(dir.remove_empty_subdirectory("sub"));
    CHECK(usage_message([&] {
              ContainedDir::open(out / "linked", "--out");
          }).find("is a symbolic link") != std::string::npos);
}

TEST_CASE("contained directory: only paths of plain names have parts") {
    CHECK(plain_parts("inventory.yml") == std::vector<std::string>{"inventory.yml"});
    CHECK(plain_parts("group_vars/x.yml") == std::vector<std::string>{"group_vars", "x.yml"});
    for (const char* bad : {"", "/etc/passwd", "../x", "a/../b", "a//b", "a/", "./a", ".", ".."})
        CHECK_MESSAGE(!plain_parts(bad), bad);
}
