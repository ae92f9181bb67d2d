// Effects is the one writer of the files apply, rollback and the boot sweep leave behind: a dry
// run shows each write as its caller says (its own line, a diff, or nothing for a backup or
// the ledger) and writes nothing; a real one writes with the owner and mode asked. And the
// outcome of apply or rollback keeps what they said in order, with the error that stopped them.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "model/errors.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/boot/boot_outcome.hpp"
#include "tuner/system/effects.hpp"

using namespace hugetune;
namespace fs = std::filesystem;

namespace {

struct TreeDir {
    fs::path root;
    TreeDir() {
        std::string tmpl = (fs::temp_directory_path() / "hugetune-effects-XXXXXX").string();
        REQUIRE(mkdtemp(tmpl.data()) != nullptr);
        root = tmpl;
    }
    ~TreeDir() { fs::remove_all(root); }
};

void put(const fs::path& path, const std::string& text) {
    std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("Effects under --dry-run: each write shown as its caller says, none done") {
    TreeDir d;
    std::ostringstream plan;
    const RootDir root = RootDir::open(d.root);
    Effects effects(root, true, plan);
    CHECK_FALSE(effects.write_file("/etc/state.json", "{}"));
    CHECK_FALSE(effects.write_file("/etc/grub.bak", "old", {}, ""));
    CHECK_FALSE(effects.write_file("/etc/grub", "new", {}, "-old\n+new\n"));
    CHECK(plan.str() == "would write " + (d.root / "etc/state.json").string() + "\n-old\n+new\n");
    CHECK(effects.planned().size() == 2);
    CHECK_FALSE(fs::exists(d.root / "etc"));

    const fs::path kept = d.root / "kept", temporary = d.root / ".kept.tmp.AbC123";
    put(kept, "x");
    put(temporary, "half");
    CHECK_FALSE(effects.remove_file("/kept", ""));
    effects.remove_stale_temporaries_of("/kept");
    CHECK(fs::exists(kept));
    CHECK(fs::exists(temporary));
    CHECK(effects.planned().size() == 2);
}

TEST_CASE("Effects writes with the mode asked, makes the directories, and stays in the root") {
    TreeDir d;
    std::ostringstream plan;
    // The root as the user names it, through a link.
    const fs::path named = d.root.string() + "-link";
    fs::create_directory_symlink(d.root, named);
    const RootDir root = RootDir::open(named);
    Effects effects(root, false, plan);
    const std::string ledger = "/var/lib/hugetune/applied.json";
    CHECK(effects.write_file(ledger, "{}\n", FileOwnership{0600, {}, {}}, ""));
    CHECK(test::read_text(d.root / "var/lib/hugetune/applied.json") == "{}\n");
    CHECK(fs::status(d.root / "var/lib/hugetune/applied.json").permissions() ==
          (fs::perms::owner_read | fs::perms::owner_write));

    put(d.root / "var/.applied.json.tmp.AbC123", "half");
    put(d.root / "var/lib/hugetune/.applied.json.tmp.AbC123", "half");
    effects.remove_stale_temporaries_of(ledger);
    CHECK_FALSE(fs::exists(d.root / "var/lib/hugetune/.applied.json.tmp.AbC123"));
    CHECK(fs::exists(d.root / "var/.applied.json.tmp.AbC123"));

    put(d.root / "etc", "a file where a directory belongs");
    CHECK_THROWS_WITH_AS(effects.write_file("/etc/default/grub", "x"),
                         doctest::Contains("cannot create"), RuntimeError);
    CHECK_THROWS_WITH_AS(effects.write_file("/var/lib/hugetune/..", "x"),
                         doctest::Contains("names no file"), RuntimeError);
    CHECK(effects.remove_file(ledger, ""));
    CHECK_FALSE(fs::exists(d.root / "var/lib/hugetune/applied.json"));
    CHECK(plan.str().empty());
    fs::remove(named);
}

TEST_CASE("Effects writes a link's own directory inside the tree, and refuses a link at the file") {
    TreeDir d;
    std::ostringstream plan;
    fs::create_directories(d.root / "tree/etc");
    fs::create_directories(d.root / "outside");
    fs::create_directory_symlink(d.root / "outside", d.root / "tree/var");
    fs::create_symlink("/etc/grub.real", d.root / "tree/etc/grub");
    const RootDir root = RootDir::open(d.root / "tree");
    Effects effects(root, false, plan);
    // /var leads to the tree's own copy of the outside directory's path, made for the write.
    CHECK_THROWS_WITH_AS(effects.write_file("/var/lib/x.json", "{}"),
                         doctest::Contains("leads to nothing"), RuntimeError);
    fs::create_directories(d.root / "tree" / (d.root / "outside").relative_path());
    CHECK(effects.write_file("/var/lib/x.json", "{}"));
    CHECK(fs::exists(d.root / "tree" / (d.root / "outside").relative_path() / "lib/x.json"));
    CHECK(fs::is_empty(d.root / "outside"));
    CHECK_THROWS_WITH_AS(effects.write_file("/etc/grub", "x"),
                         doctest::Contains("is a symbolic link"), UsageError);
    CHECK(effects.remove_file("/etc/grub"));
    CHECK_FALSE(fs::exists(fs::symlink_status(d.root / "tree/etc/grub")));
}

TEST_CASE("a boot command's outcome keeps what it said in order, and the error that stopped it") {
    const boot::BootOutcome outcome =
        boot::run_boot_steps([](boot::BootOutcome& done, std::ostream& out, std::ostream& err) {
            out << "backed up\n";
            err << "hugetune: note: " << 1 << "\n";
            out << "edited\n";
            out << "ran\n";
            done.setting = "hugepage_alloc_threads=8";
            throw UsageError("refused");
        });
    REQUIRE(outcome.output.size() == 3);
    CHECK_FALSE(outcome.output[0].diagnostic);
    CHECK(outcome.output[0].text == "backed up\n");
    CHECK(outcome.output[1].diagnostic);
    CHECK(outcome.output[1].text == "hugetune: note: 1\n");
    CHECK(outcome.output[2].text == "edited\nran\n");
    CHECK(outcome.setting == "hugepage_alloc_threads=8");
    REQUIRE(outcome.failure);
    CHECK_THROWS_AS(std::rethrow_exception(outcome.failure), UsageError);

    const boot::BootOutcome finished =
        boot::run_boot_steps([](boot::BootOutcome&, std::ostream&, std::ostream&) {});
    CHECK_FALSE(finished.failure);
    CHECK(finished.output.empty());
}
