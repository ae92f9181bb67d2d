// A tree is reached only from its root's descriptor, and the kernel resolves each path as for a
// process chrooted into it (openat2 RESOLVE_IN_ROOT): links are followed inside the tree, an
// absolute link starts again at its root, ".." stops there, a loop is ELOOP after 40 links, and
// a directory swapped for a link while files are written leads nothing out of the tree. Without
// openat2 only this machine's "/" opens.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/system/effects.hpp"
#include "tuner/system/root_dir.hpp"
#include "tuner/system/root_path.hpp"

using namespace hugetune;
namespace fs = std::filesystem;

namespace {

struct Tree {
    test::ScratchDir scratch;
    fs::path dir = scratch.path;
    fs::path root = dir / "root";
    fs::path elsewhere = dir / "elsewhere";
    Tree() {
        fs::create_directories(root / "etc/default");
        fs::create_directories(root / "usr/share/grub");
        fs::create_directories(elsewhere / "var/lib");
        std::ofstream(root / "etc/default/grub") << "inside\n";
        std::ofstream(elsewhere / "grub") << "outside\n";
    }
};

// What reading `target` through the tree gives: its bytes, or "errno N".
std::string read_in(const RootDir& root, const std::string& target, int flags = 0) {
    const OwnedFd fd = root.open_path(target, O_RDONLY | flags);
    if (!fd.valid())
        return "errno " + std::to_string(errno);
    char buffer[256];
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    return n < 0 ? "errno " + std::to_string(errno)
                 : std::string(buffer, static_cast<std::size_t>(n));
}

// Every path under `dir` with its bytes, sorted: what a write outside the tree would change.
std::string listing(const fs::path& dir) {
    std::set<std::string> entries;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        entries.insert(e.path().string() + "=" +
                       (e.is_regular_file() ? test::read_text(e.path()) : std::string("dir")));
    std::string out;
    for (const auto& e : entries)
        out += e + "\n";
    return out;
}

const std::string kMissing = "errno " + std::to_string(ENOENT);
const std::string kLoop = "errno " + std::to_string(ELOOP);

}  // namespace

TEST_CASE("a plain path is the tree's file, however it is spelled") {
    Tree t;
    const RootDir root = RootDir::open(t.root);
    CHECK_FALSE(root.is_live());
    CHECK(read_in(root, "/etc/default/grub") == "inside\n");
    CHECK(read_in(root, "etc//default/./grub") == "inside\n");
    CHECK(read_in(root, "/var/lib/hugetune/applied.json") == kMissing);
    CHECK(root.shown("/etc/default/grub") == t.root.string() + "/etc/default/grub");
    CHECK(RootDir::open(t.root.string() + "/").shown("/x") == t.root.string() + "/x");
}

TEST_CASE("an absolute link starts again at the root, not at this machine's /") {
    Tree t;
    const RootDir root = RootDir::open(t.root);
    fs::create_symlink(t.elsewhere / "grub", t.root / "etc/default/50-vendor.cfg");
    CHECK(read_in(root, "/etc/default/50-vendor.cfg") == kMissing);
    fs::create_directories(t.root / t.elsewhere.relative_path());
    std::ofstream(t.root / t.elsewhere.relative_path() / "grub") << "the tree's\n";
    CHECK(read_in(root, "/etc/default/50-vendor.cfg") == "the tree's\n");
}

TEST_CASE("'..' and climbing links stop at the root") {
    Tree t;
    const RootDir root = RootDir::open(t.root);
    CHECK(read_in(root, "/../../../etc/default/grub") == "inside\n");
    fs::create_symlink("../../../../../../../../etc", t.root / "usr/etc");
    CHECK(read_in(root, "/usr/etc/default/grub") == "inside\n");
    fs::create_symlink("default/..", t.root / "etc/up");
    CHECK(read_in(root, "/etc/up/default/grub") == "inside\n");
    fs::create_symlink("../../elsewhere/grub", t.root / "etc/climb");
    CHECK(read_in(root, "/etc/climb") == kMissing);
}

TEST_CASE("'..' after a missing part climbs from that part, which does not exist") {
    // The string walk this replaced appended the parts after a missing one unchecked, and a
    // link after the ".." then led out of the tree.
    Tree t;
    const RootDir root = RootDir::open(t.root);
    fs::create_symlink(t.elsewhere, t.root / "lnk");
    std::ofstream(t.elsewhere / "boot-sweep.json") << "outside\n";
    CHECK(read_in(root, "/nonexist/../lnk/boot-sweep.json") == kMissing);
    CHECK_FALSE(root.directory("/nonexist/../lnk"));
    // A writer makes the missing part first, as mkdir -p in a chroot would, and the link then
    // leads to the tree's own copy of the path, once that exists.
    CHECK_THROWS_AS(root.make_directories("/nonexist/../lnk/state"), RuntimeError);
    fs::create_directories(t.root / t.elsewhere.relative_path());
    const ContainedDir made = root.make_directories("/nonexist/../lnk/state");
    CHECK(fs::is_directory(t.root / "nonexist"));
    CHECK(fs::is_directory(t.root / t.elsewhere.relative_path() / "state"));
    CHECK_FALSE(fs::exists(t.elsewhere / "state"));
}

TEST_CASE("O_NOFOLLOW keeps the last link; a loop is ELOOP") {
    Tree t;
    const RootDir root = RootDir::open(t.root);
    fs::create_symlink("grub", t.root / "etc/default/grub.link");
    CHECK(read_in(root, "/etc/default/grub.link") == "inside\n");
    CHECK(read_in(root, "/etc/default/grub.link", O_NOFOLLOW) == kLoop);
    const OwnedFd link = root.open_path("/etc/default/grub.link", O_PATH | O_NOFOLLOW);
    struct stat st {};
    REQUIRE(link.valid());
    CHECK((fstat(link.get(), &st) == 0 && S_ISLNK(st.st_mode)));
    fs::create_directories(t.root / "proc");
    fs::create_symlink("/proc/cmdline", t.root / "proc/cmdline");
    CHECK(read_in(root, "/proc/cmdline") == kLoop);
}

TEST_CASE("a magic link of /proc is refused even on this machine") {
    const RootDir root = RootDir::open("/");
    CHECK(root.is_live());
    CHECK(root.shown("/proc/cmdline") == "/proc/cmdline");
    CHECK(read_in(root, "/proc/self/root/proc/cmdline") == kLoop);
    CHECK(read_in(root, "/proc/cmdline").find("errno") == std::string::npos);
}

TEST_CASE("a writer's directories are made inside the tree, and a dangling link is an error") {
    Tree t;
    const RootDir root = RootDir::open(t.root);
    fs::create_symlink(t.elsewhere / "var", t.root / "var");
    CHECK_THROWS_WITH_AS(root.make_directories("/var/lib/hugetune"),
                         doctest::Contains("a link on the way that leads to nothing"),
                         RuntimeError);
    fs::create_directories(t.root / t.elsewhere.relative_path() / "var");
    root.make_directories("/var/lib/hugetune").write_file("applied.json", "{}\n");
    CHECK(test::read_text(t.root / t.elsewhere.relative_path() / "var/lib/hugetune/applied.json") ==
          "{}\n");
    CHECK_FALSE(fs::exists(t.elsewhere / "var/lib/hugetune"));
    std::ofstream(t.root / "etc/file") << "x";
    CHECK_THROWS_WITH_AS(root.make_directories("/etc/file/sub"), doctest::Contains("cannot create"),
                         RuntimeError);
}

TEST_CASE("a directory swapped for a link while files are written leads nothing out") {
    Tree t;
    const RootDir root = RootDir::open(t.root);
    fs::create_directories(t.elsewhere / "default");
    std::ofstream(t.elsewhere / "default/grub") << "outside\n";
    fs::create_symlink(t.elsewhere, t.root / "etc-link");
    const std::string before = listing(t.elsewhere);
    std::atomic<bool> stop{false};
    // renameat2(RENAME_EXCHANGE) swaps the tree's /etc and the link to the outside directory
    // atomically, again and again.
    std::thread swapper([&] {
        const std::string a = (t.root / "etc").string(), b = (t.root / "etc-link").string();
        while (!stop.load())
            syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE);
    });
    std::ostringstream plan;
    Effects effects(root, false, plan);
    int written = 0, refused = 0;
    for (int i = 0; i < 300; ++i) {
        try {
            effects.write_file("/etc/default/grub", "written " + std::to_string(i) + "\n");
            ++written;
        } catch (const Error&) {
            ++refused;
        }
        (void)read_in(root, "/etc/default/grub");
    }
    stop = true;
    swapper.join();
    CHECK(written > 0);
    CHECK(listing(t.elsewhere) == before);
}

TEST_CASE("without openat2 only this machine's / opens, through plain lookups") {
    Tree t;
    PretendNoOpenat2ForTests no_openat2;
    CHECK_THROWS_WITH_AS(RootDir::open(t.root), doctest::Contains("has no openat2()"),
                         UnsupportedError);
    CHECK_THROWS_AS(KernelFs{t.root}, UnsupportedError);
    const RootDir live = RootDir::open("/");
    CHECK(live.is_live());
    CHECK(read_in(live, "/proc/cmdline").find("errno") == std::string::npos);
}

TEST_CASE("a target path splits into its directory and the name a writer replaces") {
    using Split = std::optional<std::pair<std::string, std::string>>;
    CHECK(split_target_path("/var/lib/x.json") == Split({"/var/lib", "x.json"}));
    CHECK(split_target_path("/x.json") == Split({"/", "x.json"}));
    CHECK(split_target_path("x.json") == Split({"/", "x.json"}));
    CHECK(split_target_path("/a/../b") == Split({"/a/..", "b"}));
    CHECK_FALSE(split_target_path("/"));
    CHECK_FALSE(split_target_path("/var/"));
    CHECK_FALSE(split_target_path("/var/.."));
    CHECK_FALSE(split_target_path("/var/."));
}

TEST_CASE("a link out of the tree is found as this machine's lookup follows it") {
    Tree t;
    fs::create_directories(t.root / "sys/devices");
    fs::create_symlink("../devices", t.root / "sys/bus");
    CHECK_FALSE(link_out_of_root(t.root, "/sys"));
    fs::create_symlink(t.elsewhere, t.root / "sys/devices/node0");
    CHECK(link_out_of_root(t.root, "/sys") ==
          std::optional<fs::path>(t.root / "sys/devices/node0"));
    fs::remove(t.root / "sys/devices/node0");
    fs::create_symlink("../../../elsewhere", t.root / "sys/devices/node0");
    CHECK(link_out_of_root(t.root, "/sys"));
    fs::remove(t.root / "sys/devices/node0");
    CHECK_FALSE(link_out_of_root(t.root, "/sys"));
}

TEST_CASE("the folder itself may be the link out, and a b/.. chain goes where b leads") {
    Tree t;
    // /sys itself, through /proc's magic link to this machine's /.
    fs::create_symlink("/proc/1/root/sys", t.root / "sys");
    CHECK(link_out_of_root(t.root, "/sys") == std::optional<fs::path>(t.root / "sys"));
    fs::remove(t.root / "sys");
    fs::create_symlink("/sys", t.root / "sys");
    CHECK(link_out_of_root(t.root, "/sys") == std::optional<fs::path>(t.root / "sys"));
    fs::remove(t.root / "sys");
    // b, outside /sys, leads to a decoy's folder; "b/.." is its parent there, not the tree's top,
    // though the text "../b/../devices" reads as a path inside the tree.
    fs::create_directories(t.elsewhere / "deep/devices");
    fs::create_directories(t.root / "sys");
    fs::create_symlink(t.elsewhere / "deep/dir", t.root / "b");
    fs::create_directories(t.elsewhere / "deep/dir");
    fs::create_symlink("../b/../devices", t.root / "sys/devices");
    CHECK(link_out_of_root(t.root, "/sys") == std::optional<fs::path>(t.root / "sys/devices"));
    // The same chain over a b inside the tree stays in it.
    fs::remove(t.root / "b");
    fs::create_directories(t.root / "inside/dir");
    fs::create_directories(t.root / "inside/devices");
    fs::create_symlink("inside/dir", t.root / "b");
    CHECK_FALSE(link_out_of_root(t.root, "/sys"));
}

TEST_CASE("a plain absolute path names each part plainly") {
    CHECK(is_plain_absolute_path("/boot/vmlinuz"));
    CHECK_FALSE(is_plain_absolute_path("boot/vmlinuz"));
    CHECK_FALSE(is_plain_absolute_path("/boot/../etc/shadow"));
    CHECK_FALSE(is_plain_absolute_path("/boot/./vmlinuz"));
    CHECK_FALSE(is_plain_absolute_path("/boot//vmlinuz"));
    CHECK_FALSE(is_plain_absolute_path("/boot/"));
    CHECK_FALSE(is_plain_absolute_path("/"));
}
