// The boot record (model/documents/boot_record.hpp): what its writer writes its reader reads
// back the same, and the reader refuses each value no boot record holds, naming the field.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "model/documents/boot_record.hpp"
#include "model/input/json_fields.hpp"

using namespace hugetune::model;
using nlohmann::json;

namespace {

BootRecord booted() {
    BootRecord r;
    r.recorded_at = "2026-12-03T23:50:00Z";
    r.host = "web-17.example.com";
    r.sku = SkuKey{"skylake-sp", 4, 36, 384, 2048, true};
    r.boot_id = "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60";
    r.kernel_release = "6.15.0-hugetune";
    r.pool = BootRecordPool{524288, 2048};
    r.threads = 32;
    r.milliseconds = 706;
    r.init_on_alloc = true;
    r.hvo = false;
    r.allocation_line.present = true;
    r.allocation_line.text = "HugeTLB: allocation took 706ms with hugepage_allocation_threads=32";
    r.expected_threads = 32;
    r.virtualization = "none";
    return r;
}

BootRecord without_line() {
    BootRecord r;
    r.recorded_at = "2026-12-03T23:50:00Z";
    r.allocation_line.absent_reason =
        Warning{"node_format_hugepages", "node-format hugepages= takes the serial path"};
    return r;
}

BootRecord read(const json& document) {
    return read_boot_record(JsonField(document, "give the record verify --boot-record wrote"));
}

// The error read throws for `document`, or "" when it reads.
std::string refusal(const json& document) {
    try {
        read(document);
    } catch (const InputError& e) {
        // The part of the document a problem is in, where the reader names it so.
        const std::string& part = e.source().name;
        return part.empty() ? e.what() : part + ": " + e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("boot record: the writer's document reads back the same") {
    const json written = to_json(booted());
    CHECK(written["kind"] == "hugetune-boot-record");
    CHECK(written["schema_version"] == 2);
    CHECK(written["virtualization"] == "none");
    CHECK(written["sku_key"] == "skylake-sp/4n/36t/384g/2048k/ioa1");
    const BootRecord back = read(written);
    CHECK(back.sku == booted().sku);
    CHECK(back.pool == booted().pool);
    CHECK(to_json(back) == written);
    // A boot without its line is a record too: its reason, no numbers, unknowns as null.
    const json second = to_json(without_line());
    CHECK(second["allocation_line"]["present"] == false);
    CHECK(second["milliseconds"].is_null());
    CHECK(second["host"].is_null());
    CHECK(second["sku_key"].is_null());
    const BootRecord absent = read(second);
    REQUIRE(absent.allocation_line.absent_reason);
    CHECK(absent.allocation_line.absent_reason->code == "node_format_hugepages");
    CHECK(to_json(absent) == second);
}

TEST_CASE("boot record: each bound is refused, naming the field") {
    auto refused = [](const std::string& path, auto edit, const json& start = to_json(booted())) {
        json doc = start;
        edit(doc);
        const std::string why = refusal(doc);
        CHECK_MESSAGE(why.starts_with(path + ": "), why);
    };
    refused("kind", [](json& d) { d["kind"] = "hugetune-report"; });
    refused("schema_version", [](json& d) { d["schema_version"] = 3; });
    refused("schema_version", [](json& d) { d["schema_version"] = 0; });
    refused("recorded_at", [](json& d) { d["recorded_at"] = "2026-13-01T00:00:00Z"; });
    refused("host", [](json& d) { d["host"] = "web 17"; });
    refused("host", [](json& d) { d["host"] = "web..17"; });
    refused("sku_key", [](json& d) { d["sku_key"] = "skylake/4n/36t"; });
    refused("sku_key", [](json& d) { d["sku_key"] = "Sky Lake!/4n/36t/384g/2048k"; });
    refused("boot_id", [](json& d) { d["boot_id"] = "not-a-boot"; });
    refused("kernel_release", [](json& d) { d["kernel_release"] = "6.15 generic"; });
    refused("kernel_release", [](json& d) { d["kernel_release"] = std::string(65, '6'); });
    refused("pool.page_size_kb", [](json& d) { d["pool"]["page_size_kb"] = 1; });
    refused("threads", [](json& d) { d["threads"] = 0; });
    refused("threads", [](json& d) { d["threads"] = 4097; });
    refused("milliseconds", [](json& d) { d["milliseconds"] = 24 * 3600 * 1000 + 1; });
    refused("milliseconds", [](json& d) { d["milliseconds"] = -1; });
    refused("expected_alloc_threads", [](json& d) { d["expected_alloc_threads"] = 5000; });
    refused("init_on_alloc", [](json& d) { d["init_on_alloc"] = "yes"; });
    refused("hvo", [](json& d) { d["hvo"] = 1; });
    refused("milliseconds", [](json& d) { d["milliseconds"] = nullptr; });
    refused("allocation_line.text", [](json& d) { d["allocation_line"]["text"] = nullptr; });
    refused("allocation_line.absent_reason", [](json& d) {
        d["allocation_line"]["absent_reason"] = {{"code", "no_log"}, {"message", "x"}};
    });
    // Absent: a reason and no numbers.
    const json absent = to_json(without_line());
    refused(
        "allocation_line.absent_reason",
        [](json& d) { d["allocation_line"]["absent_reason"] = nullptr; }, absent);
    refused(
        "allocation_line.absent_reason.code",
        [](json& d) { d["allocation_line"]["absent_reason"]["code"] = ""; }, absent);
    refused(
        "threads", [](json& d) { d["threads"] = 32; }, absent);
    refused(
        "pool",
        [](json& d) {
            d["pool"] = {{"pages", 1}, {"page_size_kb", 2048}};
        },
        absent);
    // What the reader does not read itself, the shipped schema refuses.
    refused("document", [](json& d) { d["boot_seconds"] = 1; });
    refused("document", [](json& d) { d.erase("hvo"); });
    refused("document", [](json& d) { d["pool"]["zeroed"] = true; });
    refused("virtualization", [](json& d) { d["virtualization"] = ""; });
    refused("virtualization", [](json& d) { d["virtualization"] = std::string(65, 'k'); });
    refused("virtualization", [](json& d) { d["virtualization"] = "KVM\n"; });
    refused("virtualization", [](json& d) { d["virtualization"] = 1; });
    refused("virtualization", [](json& d) { d.erase("virtualization"); });
    CHECK(refusal(to_json(booted())).empty());
    CHECK(refusal(json::array()) ==
          "document: must be an object; give the record verify --boot-record wrote");
}

TEST_CASE("boot record: a record made in the program is held to the reader's rules") {
    // The same rules, named by the same paths, as the reader's on a document.
    CHECK_FALSE(boot_record_problem(booted()));
    CHECK_FALSE(boot_record_problem(without_line()));
    const auto path_of = [](auto edit) {
        BootRecord r = booted();
        edit(r);
        const auto problem = boot_record_problem(r);
        return problem ? problem->path : std::string();
    };
    CHECK(path_of([](BootRecord& r) { r.threads = 4294967304ULL; }) == "threads");
    CHECK(path_of([](BootRecord& r) { r.expected_threads = 0; }) == "expected_alloc_threads");
    CHECK(path_of([](BootRecord& r) { r.kernel_release = "6.15 generic"; }) == "kernel_release");
    CHECK(path_of([](BootRecord& r) { r.kernel_release = std::string(65, '6'); }) ==
          "kernel_release");
    CHECK(path_of([](BootRecord& r) { r.host = "web-17."; }) == "host");
    CHECK(path_of([](BootRecord& r) { r.recorded_at = "0000-00-00T00:00:00Z"; }) == "recorded_at");
    CHECK(path_of([](BootRecord& r) { r.milliseconds = 24ULL * 3600 * 1000 + 1; }) ==
          "milliseconds");
    CHECK(path_of([](BootRecord& r) { r.allocation_line.text.reset(); }) == "allocation_line.text");
    CHECK(path_of([](BootRecord& r) { r.recorded_at = "2024-12-31T23:59:59Z"; }) == "recorded_at");
    CHECK(path_of([](BootRecord& r) { r.virtualization = " kvm"; }) == "virtualization");
    // The reader refuses the document of each with the same path first.
    BootRecord wide = booted();
    wide.threads = 4294967304ULL;
    CHECK(refusal(to_json(wide)).starts_with("threads: is 4294967304; must be a whole number"));
}

TEST_CASE(
    "boot record: it says whether the machine booted in a virtual machine; version 1 did not") {
    BootRecord vm = booted();
    vm.virtualization = "KVM";
    CHECK(read(to_json(vm)).virtualization == "KVM");
    CHECK(read(to_json(booted())).virtualization == "none");
    vm.virtualization.reset();  // the probe could not say
    CHECK(to_json(vm)["virtualization"].is_null());
    CHECK_FALSE(read(to_json(vm)).virtualization);
    // A record of version 1, written before records said it: read, virtualization unknown.
    json first = to_json(booted());
    first["schema_version"] = 1;
    first.erase("virtualization");
    const BootRecord old = read(first);
    CHECK_FALSE(old.virtualization);
    CHECK(to_json(old)["schema_version"] == 2);
    first["virtualization"] = "none";  // not a member of version 1
    CHECK(refusal(first).starts_with("virtualization: not a member"));
}

TEST_CASE("boot record: its host follows the report's host-name rule") {
    // Any case and a trailing dot, as a report's host name; read as DNS compares names.
    for (const char* name : {"WEB-17.Example.COM.", "web-17.example.com.", "Web-17.example.com"}) {
        json doc = to_json(booted());
        doc["host"] = name;
        CHECK(read(doc).host == "web-17.example.com");
    }
}

TEST_CASE("boot record: a time before any hugetune made a record is a clock's error") {
    for (const char* at :
         {"0000-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2024-12-31T23:59:59Z"}) {
        json doc = to_json(booted());
        doc["recorded_at"] = at;
        const std::string why = refusal(doc);
        CHECK_MESSAGE(why.starts_with("recorded_at: '"), why);
        CHECK_MESSAGE(why.find("set the host's clock") != std::string::npos, why);
    }
    json doc = to_json(booted());
    doc["recorded_at"] = kEarliestBootRecordTime;
    CHECK(refusal(doc).empty());
}
