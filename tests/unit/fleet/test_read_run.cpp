#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <set>

#include "model/fleet/fleet.hpp"
#include "model/microarch.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune;
using namespace hugetune::model::fleet;
using nlohmann::json;

namespace {

// Built once: its fit runs the full bootstrap.
const json& fixed_report() {
    static const json report = test::fixed_report();
    return report;
}

// The InputError's message, or "" when the report is accepted.
std::string refusal(const json& report) {
    try {
        read_run(report);
    } catch (const model::InputError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

TEST_CASE("a report reads into the facts the fleet needs") {
    const json report = fixed_report();
    const RunFacts run = read_run(report);
    CHECK(run.host == "fixture");
    CHECK(run.sku == SkuKey{"zen4", 2, 16, 64, 2048, true});
    CHECK(run.generated_at == report["generated_at"].get<std::string>());
    CHECK(run.tool_version == "0.1.0");
    CHECK(run.kernel_release == "6.15.0");
    CHECK_FALSE(run.firmware);
    CHECK(model::to_string(run.decision) ==
          report["recommendation"]["decision"].get<std::string>());
    CHECK(run.hugepage_alloc_threads ==
          report["recommendation"]["hugepage_alloc_threads"].get<int>());
    CHECK(run.verifications.empty());
    // The same samples and machine as the sweep the report was made from.
    const auto sweep = model::parse_sweep_json(test::fixed_sweep());
    REQUIRE(run.sweep.phases.size() == sweep.phases.size());
    CHECK(run.sweep.phase("alloc")->points.size() == sweep.phase("alloc")->points.size());
    CHECK(run.sweep.machine.boot_pool_pages == sweep.machine.boot_pool_pages);
    CHECK(run.sweep.machine.nodes == 2);
    const auto again = model::recommend_from_sweep(run.sweep, model::RecommendOptions{});
    CHECK(again.hugepage_alloc_threads == run.hugepage_alloc_threads);
}

TEST_CASE("a report's firmware and verification blocks are read when present") {
    json report = fixed_report();
    report["firmware"] = {{"bios_version", "1.2"}, {"microcode", "0xa"}};
    report["verification"] = {
        {"verified", true},
        {"measured_ms", 9000},
        {"threads", 8},
        {"pool_predicted_ms", 10000.0},
        {"ratio", 0.9},
        {"kernel_release", "6.15.0"},
        {"pool", {{"pages", 100000}, {"page_size_kb", 2048}, {"init_on_alloc", nullptr}}},
        {"problems", json::array()}};
    const RunFacts run = read_run(report);
    CHECK(run.firmware == "bios 1.2, microcode 0xa");
    REQUIRE(run.verifications.size() == 1);
    const auto& v = run.verifications[0];
    CHECK(v.verified);
    CHECK(v.measured_ms == 9000);
    CHECK(v.threads == 8);
    CHECK(v.ratio == 0.9);
    REQUIRE(v.pool);
    CHECK(v.pool->pages == 100000);
    CHECK(v.kernel_release == "6.15.0");
}

TEST_CASE("a report's hardware identity is read into the key the host-name rule compares") {
    CHECK_FALSE(read_run(fixed_report()).hardware);  // a report of before the field: none
    json report = fixed_report();
    const std::string hash =
        model::identity_hash(model::IdentitySource::machine_id, "5f2c1e0b9a7d4c3e8b6a0f1d2e3c4b5a");
    report["host"]["hardware_identity"] = {{"source", "machine_id"}, {"sha256", hash}};
    const auto key = read_run(report).hardware;
    REQUIRE(key);
    CHECK(key->source == model::IdentitySource::machine_id);
    CHECK(key->hash_prefix == std::stoull(hash.substr(0, 16), nullptr, 16));
    const model::Report whole = test::read_whole_report(report);
    REQUIRE(whole.run->probe.hardware_identity);
    CHECK(whole.run->probe.hardware_identity->sha256 == hash);
    // No source: no key, the run joins its name as a report of before the field does.
    report["host"]["hardware_identity"] = {{"source", "none"},
                                           {"reason", "/etc/machine-id is absent"}};
    CHECK_FALSE(read_run(report).hardware);
    CHECK(test::read_whole_report(report).run->probe.hardware_identity->reason ==
          "/etc/machine-id is absent");
}

TEST_CASE("each bad field is refused by its JSON path") {
    const json good = fixed_report();
    REQUIRE(refusal(good).empty());
    const auto refused = [&](const json::json_pointer& where, const json& value,
                             const std::string& message) {
        json report = good;
        if (value.is_discarded())
            report.at(where.parent_pointer()).erase(where.back());
        else
            report[where] = value;
        CAPTURE(where.to_string());
        CHECK(refusal(report).rfind(message, 0) == 0);
    };
    const json gone = json(json::value_t::discarded);
    refused("/schema_version"_json_pointer, 2, "schema_version: 2 is not supported");
    refused("/host/hostname"_json_pointer, gone, "host.hostname: missing");
    refused("/host/hostname"_json_pointer, "", "host.hostname: must not be empty");
    refused("/sku"_json_pointer, gone, "sku: missing");
    refused("/sku/nodes"_json_pointer, 0, "sku.nodes: must be a whole number from 1");
    refused("/sku/microarch"_json_pointer, "a/b", "sku.microarch: 'a/b' must be 1 to 64");
    refused("/sku/page_size_kb"_json_pointer, "2048", "sku.page_size_kb: must be a whole number");
    refused("/generated_at"_json_pointer, 5, "generated_at: must be a string");
    refused("/tool/version"_json_pointer, gone, "tool.version: missing");
    refused("/sweep/points"_json_pointer, gone, "sweep.points: missing");
    refused("/sweep/points/0/threads_per_node"_json_pointer, 0,
            "sweep.points[0].threads_per_node: must be a whole number from 1 to 4096");
    refused("/sweep/points/0/threads_per_node"_json_pointer, 1000000000,
            "sweep.points[0].threads_per_node: must be a whole number from 1 to 4096");
    refused("/sweep/points/0/pages_per_node"_json_pointer, 1.2e29,
            "sweep.points[0].pages_per_node: is a pool above 1 PiB per node");
    refused("/generated_at"_json_pointer, "9999-99-99T99:99:99Z",
            "generated_at: '9999-99-99T99:99:99Z' is not a UTC time the calendar has");
    refused("/generated_at"_json_pointer, "2026-02-29T10:00:00Z",
            "generated_at: '2026-02-29T10:00:00Z' is not a UTC time the calendar has");
    refused("/sku/microarch"_json_pointer, "-2-3", "sku.microarch: '-2-3' must be 1 to 64");
    refused("/sku/microarch"_json_pointer, "=cmd|x", "sku.microarch: '=cmd|x' must be 1 to 64");
    refused("/sweep/points/0/samples_seconds/1"_json_pointer, -1.0,
            "sweep.points[0].samples_seconds[1]: must be above 0");
    refused("/sweep/parameters"_json_pointer, gone, "sweep.parameters: missing");
    refused("/recommendation/decision"_json_pointer, "maybe",
            "recommendation.decision: 'maybe' is not one of set, keep_default");
    refused("/recommendation/hugepage_alloc_threads"_json_pointer, 0,
            "recommendation.hugepage_alloc_threads: must be a whole number from 1 to 4096");
    refused("/recommendation/predicted_seconds"_json_pointer, -3.0,
            "recommendation.predicted_seconds: must be at least 0");
    refused("/recommendation/confidence"_json_pointer, 1.5,
            "recommendation.confidence: must be from 0 to 1");
    refused("/warnings/0"_json_pointer, json::object(), "warnings[0].code: missing");
    refused("/firmware"_json_pointer, "x", "firmware: must be an object");
    refused("/host/hardware_identity"_json_pointer, "x",
            "host.hardware_identity: must be an object");
    refused("/host/hardware_identity"_json_pointer, json{{"source", "dmi_product_serial"}},
            "host.hardware_identity.source: 'dmi_product_serial' is not one of dmi_product_uuid, "
            "machine_id, none");
    refused("/host/hardware_identity"_json_pointer,
            json{{"source", "machine_id"}, {"sha256", "ab"}},
            "host.hardware_identity.sha256: is not 64 lower-case hex digits");
    refused("/host/hardware_identity"_json_pointer, json{{"source", "none"}},
            "host.hardware_identity.reason: missing");
    refused("/host/hardware_identity"_json_pointer, json{{"source", "none"}, {"reason", ""}},
            "host.hardware_identity.reason: must say why");
    // What the reader does not name, the schema does: a hash beside no source.
    refused("/host/hardware_identity"_json_pointer,
            json{{"source", "none"}, {"reason", "r"}, {"sha256", std::string(64, 'a')}},
            "does not match the report schema: /host/hardware_identity");
    refused("/verification"_json_pointer, json{{"verified", "yes"}},
            "verification.verified: must be true or false");
    refused("/verification"_json_pointer, json{{"verified", true}, {"ratio", -1}},
            "verification.ratio: must be at least 0");
    refused("/verification"_json_pointer,
            json{{"verified", true},
                 {"measured_ms", 0},
                 {"threads", 8},
                 {"ratio", 0},
                 {"problems", json::array()}},
            "verification.ratio: measured/predicted is 0, outside the 0.00781 to 128");
    refused("/verification"_json_pointer, json{{"verified", true}, {"threads", 0}},
            "verification.threads: must be a whole number from 1 to 4096");
    CHECK(refusal(json::array()).rfind("document: must be an object", 0) == 0);
}

TEST_CASE("init_on_alloc is part of the SKU key, from the sku block or an older report's kernel") {
    json report = fixed_report();
    report["sku"].erase("init_on_alloc");
    report["kernel"]["init_on_alloc"] = true;
    CHECK(read_run(report).sku.init_on_alloc == true);
    report["sku"]["init_on_alloc"] = false;  // against the kernel block: an edited report
    CHECK(refusal(report).find("is not what the kernel block says: true") != std::string::npos);
    report["kernel"]["init_on_alloc"] = false;
    CHECK(read_run(report).sku.init_on_alloc == false);
    CHECK(to_string(read_run(report).sku).ends_with("/ioa0"));
    report["sku"]["init_on_alloc"] = "yes";
    CHECK(refusal(report).find("sku.init_on_alloc") != std::string::npos);
    // Hosts with it on and off are never one SKU's: their boots do different work.
    json on = fixed_report(), off = fixed_report();
    on["sku"]["init_on_alloc"] = on["kernel"]["init_on_alloc"] = true;
    off["sku"]["init_on_alloc"] = off["kernel"]["init_on_alloc"] = false;
    off["host"]["hostname"] = "other";
    const std::vector<FleetRun> runs = {{"fixture", "a", on}, {"other", "b", off}};
    try {
        answer_sku(runs, FleetOptions{});
        FAIL("a SKU of both settings was answered");
    } catch (const model::InputError& e) {
        CHECK(std::string(e.what()).find("/ioa0") != std::string::npos);
        CHECK(std::string(e.what()).find("/ioa1") != std::string::npos);
    }
}

TEST_CASE("a report's SKU microarch is refused where --sku refuses it, by the same rule") {
    for (const char* name : {"IceLake", "ice.lake", "ice_lake+x", "-icelake"}) {
        CAPTURE(name);
        json report = fixed_report();
        report["sku"]["microarch"] = name;
        const std::string message = refusal(report);
        CHECK(message.rfind("sku.microarch: '" + std::string(name) + "' " +
                                std::string(model::kMicroarchRule),
                            0) == 0);
        try {
            parse_sku_key(std::string(name) + "/2n/16t/64g/2048k");
            FAIL("--sku took it");
        } catch (const model::InputError& e) {
            CHECK(std::string(e.what()).find(std::string(model::kMicroarchRule)) !=
                  std::string::npos);
        }
    }
    // and what --sku takes, the reader takes (here the fixture CPU's own name).
    CHECK(parse_sku_key(to_string(read_run(fixed_report()).sku)) == read_run(fixed_report()).sku);
}

namespace {

json with_cpu(const char* vendor, int family, int model, int stepping, const char* microarch) {
    json report = fixed_report();
    report["cpu"]["vendor"] = vendor;
    report["cpu"]["family"] = family;
    report["cpu"]["model"] = model;
    report["cpu"]["stepping"] = stepping;
    report["cpu"]["microarch"] = microarch;
    report["sku"]["microarch"] = microarch;
    return report;
}

}  // namespace

TEST_CASE("the sku block's microarch is checked against the cpu block") {
    // The fixture's CPU is AMD family 25 model 17 (zen4): another name is an edited report.
    json report = fixed_report();
    report["sku"]["microarch"] = "skylake-sp";
    CHECK(refusal(report).rfind("sku.microarch: 'skylake-sp' is not what cpu (AuthenticAMD "
                                "family 25 model 17 stepping 1) is: zen4",
                                0) == 0);
    report = with_cpu("GenuineIntel", 6, 62, 4, "skylake-sp");
    CHECK(refusal(report).rfind("sku.microarch: 'skylake-sp' is not what cpu (GenuineIntel "
                                "family 6 model 62 stepping 4) is: ivybridge-ep",
                                0) == 0);
    // Another CPU's identity name is refused too.
    CHECK(refusal(with_cpu("GenuineIntel", 6, 1234, 4, "intel-6-1234-5")).find("intel-6-1234-4") !=
          std::string::npos);
}

TEST_CASE("the sku block's nodes and threads are checked against the topology block") {
    // The fixture: two nodes with memory, 16 hardware threads on each.
    json report = fixed_report();
    report["sku"]["nodes"] = 4;
    CHECK(refusal(report).rfind("sku.nodes: '4' is not what the topology block says: 2 nodes "
                                "with memory; the report's sku and topology blocks disagree",
                                0) == 0);
    report = fixed_report();
    report["sku"]["hardware_threads_per_node"] = 32;
    CHECK(refusal(report).rfind("sku.hardware_threads_per_node: '32' is not what the topology "
                                "block says: 16 hardware threads",
                                0) == 0);
    // A node without memory is not counted, as the probe does not count it.
    report = fixed_report();
    json empty = report["topology"]["nodes"][0];
    empty["id"] = 9;
    empty["memory_bytes"] = 0;
    report["topology"]["nodes"].push_back(empty);
    CHECK(refusal(report).empty());
}

TEST_CASE("the sku block's memory, page size and init_on_alloc are derived again from the report") {
    // A SKU no machine is (0 GiB, 10^12 GiB a node), a page size the sweep did not measure, and
    // init_on_alloc against the kernel block: each an edited report, refused naming both values.
    const std::uint64_t gib = read_run(fixed_report()).sku.memory_per_node_gib;
    REQUIRE(gib > 0);
    for (const std::uint64_t edited : {std::uint64_t{0}, std::uint64_t{1'000'000'000'000}}) {
        json report = fixed_report();
        report["sku"]["memory_per_node_gib"] = edited;
        CHECK(refusal(report).rfind("sku.memory_per_node_gib: '" + std::to_string(edited) +
                                        "' is not what the topology block says: " +
                                        std::to_string(gib) + " GiB on its smallest node",
                                    0) == 0);
    }
    json report = fixed_report();
    const std::uint64_t page_kb = report["sku"]["page_size_kb"].get<std::uint64_t>();
    report["sku"]["page_size_kb"] = page_kb == 2048 ? 1048576 : 2048;
    CHECK(refusal(report).find("is not what the sweep block says: " + std::to_string(page_kb) +
                               " kB pages measured") != std::string::npos);
    report = fixed_report();
    REQUIRE(report["kernel"].contains("init_on_alloc"));
    const bool init = report["kernel"]["init_on_alloc"].get<bool>();
    report["sku"]["init_on_alloc"] = !init;
    CHECK(refusal(report).rfind(
              std::string("sku.init_on_alloc: '") + (init ? "false" : "true") +
                  "' is not what the kernel block says: " + (init ? "true" : "false"),
              0) == 0);
    // A report made before the sku block held init_on_alloc takes the kernel block's.
    report = fixed_report();
    report["sku"].erase("init_on_alloc");
    CHECK(read_run(report).sku.init_on_alloc == init);
}

TEST_CASE("an older report's unknown or identity name becomes this table's name for its CPU") {
    // Made before identity names: `unknown` reads as the CPU's identity or the table's name.
    CHECK(read_run(with_cpu("GenuineIntel", 6, 1234, 4, "unknown")).sku.microarch ==
          "intel-6-1234-4");
    CHECK(read_run(with_cpu("GenuineIntel", 6, 62, 4, "unknown")).sku.microarch == "ivybridge-ep");
    // Made when the table did not name the CPU: its identity reads as the name it has now.
    CHECK(read_run(with_cpu("GenuineIntel", 6, 62, 4, "intel-6-62-4")).sku.microarch ==
          "ivybridge-ep");
    // An arm64 report names its core by the MIDR.
    json arm = with_cpu("0x00", -1, -1, -1, "unknown");
    arm["cpu"]["midr"] = {
        {"implementer", 0}, {"variant", 0}, {"architecture", 15}, {"part", 0x051}, {"revision", 0}};
    CHECK(read_run(arm).sku.microarch == "arm-00-051");
}

TEST_CASE("Xeon E5 v2, Opteron, Alder Lake and model 85 stepping 8 are four SKUs, not one") {
    // Reports that differ only in their CPU, each as an older hugetune wrote it (`unknown`).
    const std::vector<json> reports = {
        with_cpu("GenuineIntel", 6, 62, 4, "unknown"),
        with_cpu("AuthenticAMD", 0x15, 0x02, 0, "unknown"),
        with_cpu("GenuineIntel", 6, 151, 2, "unknown"),
        with_cpu("GenuineIntel", 6, 85, 8, "unknown"),
    };
    std::set<std::string> keys;
    for (const auto& report : reports)
        keys.insert(to_string(read_run(report).sku));
    CHECK(keys == std::set<std::string>{
                      "ivybridge-ep/2n/16t/64g/2048k/ioa1", "amd-21-2-0/2n/16t/64g/2048k/ioa1",
                      "alderlake/2n/16t/64g/2048k/ioa1", "intel-6-85-8/2n/16t/64g/2048k/ioa1"});
}

TEST_CASE("a run's warning codes are what its facts give, not what its list says") {
    // Measured in a VM with a confidence of 0.1, its list without either code: the run rule
    // still sees both.
    json report = test::bare_metal(fixed_report());
    report["virtualization"]["hypervisor"] = true;
    report["recommendation"]["confidence"] = 0.1;
    const RunFacts run = read_run(report);
    const std::set<std::string> codes(run.warning_codes.begin(), run.warning_codes.end());
    CHECK(codes.count("vm") == 1);
    CHECK(codes.count("low_confidence") == 1);
    const auto unlike = warnings_unlike_facts(test::read_whole_report(report), run);
    REQUIRE(unlike);
    CHECK(*unlike == "its warnings lack low_confidence, vm, which its own facts give");
    // A report hugetune wrote lists exactly what its facts give.
    CHECK_FALSE(
        warnings_unlike_facts(test::read_whole_report(fixed_report()), read_run(fixed_report())));
}

TEST_CASE("four VMs of five hosts with emptied warnings lists settle nothing") {
    std::vector<FleetRun> runs;
    for (int i = 0; i < 5; ++i) {
        const std::string host = "host" + std::to_string(i);
        json r = test::as_host(test::bare_metal(fixed_report()), host);
        if (i > 0)
            r["virtualization"]["hypervisor"] = true;
        runs.push_back({host, host + "-run", r});
    }
    FleetOptions o;
    o.recommend.resamples = 50;
    const SkuAnswer a = answer_sku(runs, o);
    INFO(a.status_reason);
    CHECK(a.status == SkuStatus::host_warnings);
    CHECK(a.status_reason.find("vm (host1, host2, host3, host4)") != std::string::npos);
}
