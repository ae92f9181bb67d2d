// The machine's facts judged once, by the model, in the order reports list them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "model/input/fit_input.hpp"
#include "model/warning.hpp"

using namespace hugetune::model;

namespace {

std::vector<std::string> codes(const std::vector<Warning>& warnings) {
    std::vector<std::string> out;
    for (const auto& w : warnings)
        out.push_back(w.code);
    return out;
}

}  // namespace

TEST_CASE("machine warnings: unknown facts warn about nothing") {
    CHECK(machine_warnings(MachineFacts{}, 2048).empty());
    CHECK(machine_warnings(MachineFacts{}, 0).empty());
}

TEST_CASE("machine warnings: every fact, in report order, a node-format line per page size") {
    MachineFacts m;
    m.hypervisor = true;
    m.kernel_release = "6.12.3";
    m.supports_alloc_threads = false;
    m.boot_requests = {{2048, 512, true}, {1048576, 4, true}};
    const auto w = machine_warnings(m, 2048);
    CHECK(codes(w) == std::vector<std::string>{"vm", "kernel_too_old", "node_format_hugepages",
                                               "node_format_hugepages"});
    CHECK(w[1].message.starts_with("kernel 6.12.3 ignores hugepage_alloc_threads="));
    CHECK(w[2].message.find("2 MiB pages per node") != std::string::npos);
    CHECK(w[3].message.find("1 GiB pages per node") != std::string::npos);
    for (const auto& x : w)
        CHECK(is_machine_warning(x.code));
}

TEST_CASE("machine warnings: gigantic pages, requested at boot or measured") {
    MachineFacts m;
    m.boot_requests = {{1048576, 4, false}};
    auto w = machine_warnings(m, 2048);
    REQUIRE(codes(w) == std::vector<std::string>{"gigantic_only"});
    CHECK(w[0].message.starts_with("only gigantic (1 GiB) pages are requested at boot"));
    m.boot_requests.push_back({2048, 100, false});  // a threaded pool too: nothing to say
    CHECK(machine_warnings(m, 2048).empty());
    w = machine_warnings(m, 1048576);  // the sweep measured gigantic pages
    REQUIRE(codes(w) == std::vector<std::string>{"gigantic_only"});
    CHECK(w[0].message.starts_with("gigantic pages are allocated serially at boot"));
    CHECK_FALSE(is_machine_warning("low_confidence"));
}

TEST_CASE("machine warnings: gigantic is the measured kernel's rule, not a fixed size") {
    // arm64 with 64 KiB pages: the largest buddy block is 512 MiB, so 512M pools are threaded
    // and only 16G pages are gigantic.
    MachineFacts m;
    m.largest_buddy_block_kb = 512 * 1024;
    m.boot_requests = {{512 * 1024, 64, false}};
    CHECK(machine_warnings(m, 512 * 1024).empty());
    m.boot_requests = {{16 * 1024 * 1024, 2, false}};
    auto w = machine_warnings(m, 2048);
    REQUIRE(codes(w) == std::vector<std::string>{"gigantic_only"});
    CHECK(w[0].message.starts_with("only gigantic (16 GiB) pages are requested at boot"));
    // arm64 with 4 KiB pages: 32M is above the 4 MiB block.
    MachineFacts small;
    small.boot_requests = {{32 * 1024, 8, false}};
    CHECK(codes(machine_warnings(small, 64)) == std::vector<std::string>{"gigantic_only"});
    CHECK(codes(machine_warnings(MachineFacts{}, 32 * 1024)) ==
          std::vector<std::string>{"gigantic_only"});
}
