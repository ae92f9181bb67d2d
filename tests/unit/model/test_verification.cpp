// The verification document (model/documents/verification.hpp): what its writer writes its
// reader reads back the same, and the reader refuses what no boot could have measured.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "model/documents/verification.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"

using namespace hugetune::model;
using nlohmann::json;

namespace {

Verification measured() {
    Verification v;
    v.verified = true;
    v.measured_ms = 1500;
    v.threads = 32;
    v.expected_threads = 32;
    v.predicted_ms = 1400;
    v.pool_predicted_ms = 1250;
    v.ratio = 1.2;
    v.pool = VerifiedPool{524288, 2048, false};
    v.kernel_release = "6.15.0";
    v.boot_id = "0f0e";
    v.cmdline_value = "32";
    v.log_line = "HugeTLB: allocation took 1500ms with hugepage_allocation_threads=32";
    return v;
}

Verification read_block(const json& block) {
    const json doc = {{"verification", block}};
    return read_verification(JsonField(doc, "give the report verify wrote")["verification"]);
}

// The error read_block throws for `block`, or "" when it reads.
std::string refusal(const json& block) {
    try {
        read_block(block);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("verification: the writer's block reads back the same") {
    const Verification v = measured();
    const json written = to_json(v);
    CHECK(to_json(read_block(written)) == written);
    Verification unverified;
    unverified.problems.push_back({"no_allocation_line", "the log has no allocation line"});
    unverified.ratio_refused = Warning{"pool_differs", "another pool was booted"};
    const json second = to_json(unverified);
    CHECK(second["measured_ms"].is_null());
    CHECK_FALSE(second.contains("kernel_release"));
    CHECK(to_json(read_block(second)) == second);
}

TEST_CASE("verification: values no boot measures are refused, naming the field") {
    json block = to_json(measured());
    block["ratio"] = 1e308;
    CHECK(refusal(block).starts_with("verification.ratio: "));
    block["ratio"] = 1.3;
    CHECK(refusal(block).find("verification.ratio: is not measured_ms / pool_predicted_ms") == 0);
    block = to_json(measured());
    block["measured_ms"] = 1e12;
    CHECK(refusal(block).starts_with("verification.measured_ms: "));
    block = to_json(measured());
    block["threads"] = 0;
    CHECK(refusal(block).starts_with("verification.threads: "));
    block["threads"] = 5000;
    CHECK(refusal(block).starts_with("verification.threads: "));
    block = to_json(measured());
    block["verified"] = "yes";
    CHECK(refusal(block) ==
          "verification.verified: must be true or false; give the report verify wrote");
    block = to_json(measured());
    block["problems"] = json::array({{{"code", "not_applied"}, {"message", "x"}}});
    CHECK(refusal(block).starts_with("verification.problems: must be empty when verified"));
    block = to_json(measured());
    block["pool"]["page_size_kb"] = 1;
    CHECK(refusal(block).starts_with("verification.pool.page_size_kb: "));
    block = to_json(measured());
    block.erase("verified");
    CHECK(refusal(block).starts_with("verification.verified: missing"));
    CHECK(refusal(to_json(measured())).empty());
}

TEST_CASE("verification: a block that says verified against its own numbers is refused") {
    // measured() is a boot of 1 TiB zeroed by 32 threads in 1.5 s, 1.2 times its prediction.
    json block = to_json(measured());
    block["ratio"] = 200.0;
    block["pool_predicted_ms"] = 7.5;
    CHECK(refusal(block).starts_with(
        "verification.ratio: measured/predicted is 200, outside the 0.00781 to 128"));
    block["verified"] = false;
    CHECK(refusal(block).empty());
    // 0 ms is what the kernel logs for less than a jiffy: kept, never verified.
    block = to_json(measured());
    block["measured_ms"] = 0;
    block["ratio"] = 0.0;
    CHECK(refusal(block).starts_with("verification.ratio: measured/predicted is 0,"));
    block["verified"] = false;
    block["problems"] = json::array({{{"code", "implausible_time"}, {"message", "x"}}});
    CHECK(refusal(block).empty());
    // Faster than any memory is zeroed: 1 TiB by 2 writers (the line's threads) takes at least
    // 125 ms.
    block = to_json(measured());
    block["ratio"] = nullptr;
    block["measured_ms"] = 0;
    block["threads"] = 2;
    block["pool"]["init_on_alloc"] = true;
    CHECK(
        refusal(block).starts_with("verification.measured_ms: the kernel logged 0 ms for "
                                   "524288 pages of 2 MiB (1024 GiB)"));
    block["pool"]["init_on_alloc"] = false;
    CHECK(refusal(block).empty());
    block = to_json(measured());
    block["measured_ms"] = nullptr;
    block["ratio"] = nullptr;
    CHECK(refusal(block).starts_with("verification.measured_ms: missing, but verified is true"));
}
