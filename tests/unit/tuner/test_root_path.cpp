// Paths under --root resolve as a process chrooted into the tree resolves them: links are
// followed inside the tree, an absolute link starts again at its root, ".." stops there, and a
// loop is an error after the kernel's 40 links.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "model/errors.hpp"
#include "tuner/system/root_path.hpp"

using namespace hugetune;
namespace fs = std::filesystem;

namespace {

struct Tree {
    fs::path dir;
    fs::path root;
    Tree() {
        std::string tmpl = (fs::temp_directory_path() / "hugetune-root-path-XXXXXX").string();
        REQUIRE(mkdtemp(tmpl.data()) != nullptr);
        dir = tmpl;
        root = dir / "root";
        fs::create_directories(root / "etc/default");
        fs::create_directories(root / "usr/share/grub");
        fs::create_directories(dir / "elsewhere/var/lib");
        std::ofstream(root / "etc/default/grub") << "inside\n";
    }
    ~Tree() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("a plain path is the root's file, and a missing one is named as given") {
    Tree t;
    CHECK(resolve_in_root(t.root, "/etc/default/grub") == t.root / "etc/default/grub");
    CHECK(resolve_in_root(t.root, "/var/lib/hugetune/applied.json") ==
          t.root / "var/lib/hugetune/applied.json");
    CHECK(resolve_in_root(t.root, "etc//default/./grub") == t.root / "etc/default/grub");
}

TEST_CASE("an absolute link starts again at the root, not at this machine's /") {
    Tree t;
    fs::create_symlink(t.dir / "elsewhere/var", t.root / "var");
    CHECK(resolve_in_root(t.root, "/var/lib/x") ==
          t.root / t.dir.relative_path() / "elsewhere/var/lib/x");
    fs::create_symlink("/usr/share/grub/vendor.cfg", t.root / "etc/default/50-vendor.cfg");
    CHECK(resolve_in_root(t.root, "/etc/default/50-vendor.cfg") ==
          t.root / "usr/share/grub/vendor.cfg");
}

TEST_CASE("'..' and climbing links stop at the root") {
    Tree t;
    CHECK(resolve_in_root(t.root, "/../../../etc/default/grub") == t.root / "etc/default/grub");
    fs::create_symlink("../../../../../../../../etc", t.root / "usr/etc");
    CHECK(resolve_in_root(t.root, "/usr/etc/default/grub") == t.root / "etc/default/grub");
    fs::create_symlink("default/..", t.root / "etc/up");
    CHECK(resolve_in_root(t.root, "/etc/up/default/grub") == t.root / "etc/default/grub");
}

TEST_CASE("the last link is kept for writers, followed for readers") {
    Tree t;
    fs::create_symlink("grub", t.root / "etc/default/grub.link");
    CHECK(resolve_in_root(t.root, "/etc/default/grub.link", LastLink::keep) ==
          t.root / "etc/default/grub.link");
    CHECK(resolve_in_root(t.root, "/etc/default/grub.link") == t.root / "etc/default/grub");
    // The directories on the way are followed either way.
    fs::create_symlink("/etc", t.root / "etc2");
    CHECK(resolve_in_root(t.root, "/etc2/default/grub.link", LastLink::keep) ==
          t.root / "etc/default/grub.link");
}

TEST_CASE("a link loop is an error naming the path and the root") {
    Tree t;
    fs::create_symlink("/proc/cmdline", t.root / "cmdline");
    fs::create_directories(t.root / "proc");
    fs::create_symlink("/proc/cmdline", t.root / "proc/cmdline");
    CHECK_THROWS_WITH_AS(resolve_in_root(t.root, "/proc/cmdline"),
                         doctest::Contains("more than 40 symbolic links"), RuntimeError);
}

TEST_CASE("target_path_of takes a host path back to the target's") {
    CHECK(target_path_of("/r", "/r/etc/x") == std::optional<std::string>("/etc/x"));
    CHECK(target_path_of("/r/", "/r/etc/x") == std::optional<std::string>("/etc/x"));
    CHECK(target_path_of("/r", "/r") == std::optional<std::string>("/"));
    CHECK_FALSE(target_path_of("/r", "/rx/etc"));
    CHECK_FALSE(target_path_of("/r", "/r/../etc"));
}

TEST_CASE("a link out of the tree is found without following it") {
    Tree t;
    fs::create_directories(t.root / "sys/devices");
    fs::create_symlink("../devices", t.root / "sys/bus");
    CHECK_FALSE(link_out_of_root(t.root, "/sys"));
    fs::create_symlink(t.dir / "elsewhere", t.root / "sys/devices/node0");
    CHECK(link_out_of_root(t.root, "/sys") ==
          std::optional<fs::path>(t.root / "sys/devices/node0"));
    fs::remove(t.root / "sys/devices/node0");
    fs::create_symlink("../../../elsewhere", t.root / "sys/devices/node0");
    CHECK(link_out_of_root(t.root, "/sys"));
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
