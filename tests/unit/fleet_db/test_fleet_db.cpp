// The fleet database on a SQLite file: migrations on open, idempotent ingest keyed by host,
// time and content, a verification added later. The same statements on PostgreSQL:
// tests/cli/fleet_postgres.sh.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include <sqlite3.h>

#include "fleet_db/fleet_db.hpp"
#include "fleet_db/fleet_db_error.hpp"
#include "fleet_db/report_intake.hpp"
#include "model/fleet/host_runs.hpp"
#include "model/text.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune::fleet_db;
namespace fs = std::filesystem;

namespace {

std::string fixture_text() {
    std::ifstream in(hugetune::test::source_dir() / "tests/fixtures/fleet/report-1.json");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

IntakeReport report_of(const std::string& host, const nlohmann::json* verification = nullptr) {
    auto doc = nlohmann::json::parse(fixture_text());
    doc["host"]["hostname"] = host;
    if (verification)
        doc["verification"] = *verification;
    return read_intake_report(host + ".json", doc.dump());
}

// The fixture's report as host `host`'s, its samples its own (test::as_host): a host of its own
// however the fleet joins hosts.
IntakeReport own_report_of(const std::string& host) {
    auto doc = hugetune::test::as_host(nlohmann::json::parse(fixture_text()), host);
    return read_intake_report(host + ".json", doc.dump());
}

// Each host with a report of the SKU a host of its own.
hugetune::model::fleet::BootHosts report_hosts(FleetDb& db, const std::string& sku_key) {
    std::vector<std::string> names;
    for (const auto& row : db.host_sku_latest())
        if (row.sku_key == sku_key)
            names.push_back(row.host);
    return hugetune::model::fleet::BootHosts(names);
}

// The record of a boot of `host` on the SKU `key` with the kernel's line: 16 threads, 8,192 pages
// of 2 MiB, `ms` milliseconds; `serial` makes its boot id.
hugetune::model::BootRecord line_record(const std::string& key, const std::string& host, int serial,
                                        std::uint64_t ms) {
    hugetune::model::BootRecord r;
    r.recorded_at = "2026-12-03T10:00:00Z";
    r.host = host;
    r.sku = hugetune::model::fleet::parse_sku_key(key);
    char id[40];
    std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012x", serial);
    r.boot_id = id;
    r.kernel_release = "6.15.3";
    r.pool = hugetune::model::BootRecordPool{8192, 2048};
    r.threads = 16;
    r.milliseconds = ms;
    r.allocation_line.present = true;
    r.allocation_line.text =
        "HugeTLB: allocation took " + std::to_string(ms) + "ms with hugepage_allocation_threads=16";
    return r;
}

// That boot as `fleet ingest` takes it from a JSON Lines file.
IntakeBoot line_boot(const std::string& key, const std::string& host, int serial,
                     std::uint64_t ms) {
    return intake_boot("boots.jsonl", line_record(key, host, serial, ms));
}

struct TempDb {
    fs::path dir = fs::temp_directory_path() / ("hugetune-fleet-" + std::to_string(getpid()));
    TempDb() { fs::create_directories(dir); }
    ~TempDb() { fs::remove_all(dir); }
    DbTarget target() const { return parse_db_target((dir / "fleet.db").string()); }
};

}  // namespace

TEST_CASE("fleet db: a new file gets the latest schema; ingest stores each report once") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    CHECK(db.schema_version() == latest_schema_version());
    auto first = db.ingest({report_of("a"), report_of("b"), report_of("a")});
    CHECK(first.added == std::vector<std::string>{"a.json", "b.json"});
    CHECK(first.skipped == std::vector<std::string>{"a.json"});
    auto again = db.ingest({report_of("b")});
    CHECK(again.added.empty());
    const auto keys = db.sku_keys();
    REQUIRE(keys.size() == 1);
    CHECK(db.runs_of_sku(keys[0]).size() == 2);
    CHECK(db.sku_of_host("a") == keys[0]);
    CHECK_FALSE(db.sku_of_host("nobody").has_value());
}

TEST_CASE("fleet db: a verification block is added to its run on re-ingest, once") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    db.ingest({report_of("a")});
    const nlohmann::json v = {{"verified", true},
                              {"measured_ms", 900},
                              {"threads", 2},
                              {"ratio", 1.1},
                              {"problems", nlohmann::json::array()}};
    const auto with = report_of("a", &v);
    CHECK(with.content_hash == report_of("a").content_hash);
    CHECK(db.ingest({with}).verification_added == std::vector<std::string>{"a.json"});
    CHECK(db.ingest({with}).skipped == std::vector<std::string>{"a.json"});
    const auto runs = db.runs_of_sku(db.sku_keys().at(0));
    REQUIRE(runs.size() == 1);
    CHECK_FALSE(runs[0].report.contains("verification"));
    REQUIRE(runs[0].verifications.size() == 1);
    CHECK(runs[0].verifications[0].verification.measured_ms == 900u);
    CHECK(runs[0].verifications[0].key.rfind(with.content_hash + ":", 0) == 0);
}

namespace {

nlohmann::json verified_at(const std::string& boot_id, int measured_ms) {
    return {{"verified", true},
            {"measured_ms", measured_ms},
            {"threads", 2},
            {"pool_predicted_ms", 1000.0},
            {"ratio", measured_ms / 1000.0},
            {"boot_id", boot_id},
            {"problems", nlohmann::json::array()}};
}

}  // namespace

TEST_CASE("fleet db: each distinct verification of a run is kept, an identical one once") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    db.ingest({report_of("a")});
    const std::string sku = db.sku_keys().at(0);
    const auto first = verified_at("boot-1", 900), second = verified_at("boot-2", 1100);
    CHECK(db.ingest({report_of("a", &first)}).verification_added.size() == 1);
    const std::string one = db.runs_digest(sku);
    // The same report verified at another boot: a second verification, not "already stored".
    CHECK(db.ingest({report_of("a", &second)}).verification_added ==
          std::vector<std::string>{"a.json"});
    CHECK(db.runs_digest(sku) != one);
    const std::string two = db.runs_digest(sku);
    CHECK(db.ingest({report_of("a", &first), report_of("a", &second)}).skipped.size() == 2);
    CHECK(db.runs_digest(sku) == two);
    const auto runs = db.runs_of_sku(sku);
    REQUIRE(runs.size() == 1);
    REQUIRE(runs[0].verifications.size() == 2);
    CHECK(runs[0].verifications[0].verification.boot_id == "boot-1");
    CHECK(runs[0].verifications[1].verification.boot_id == "boot-2");
    CHECK(runs[0].verifications[0].key != runs[0].verifications[1].key);
    // Listed from the columns, by host then time.
    const auto listed = db.list_runs({});
    REQUIRE(listed.size() == 1);
    REQUIRE(listed[0].verifications.size() == 2);
    CHECK(listed[0].verifications[1].key == runs[0].verifications[1].key);
    CHECK(listed[0].verifications[1].boot_id == "boot-2");
    CHECK(listed[0].verifications[1].verified);
    CHECK(listed[0].verifications[1].ratio == doctest::Approx(1.1));
}

TEST_CASE("fleet db: forget removes the selected runs, their hosts and SKUs left empty") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    const auto v = verified_at("boot-1", 900);
    db.ingest({report_of("a", &v), report_of("b")});
    const std::string sku = db.sku_keys().at(0);
    CHECK(db.keep_answer(sku, "in", {"{}", "{}"}));
    RunSelection host_a;
    host_a.host = "a";
    const auto dry = db.forget_runs(host_a, true);
    CHECK(dry.runs.size() == 1);
    CHECK(dry.verifications.size() == 1);
    CHECK(dry.hosts == std::vector<std::string>{"a"});
    CHECK(dry.skus.empty());  // host b keeps it
    CHECK(dry.answers_dropped == std::vector<std::string>{sku});
    CHECK(db.list_runs({}).size() == 2);  // a dry run changes nothing
    CHECK(db.kept_answer(sku, "in", false).has_value());
    const auto done = db.forget_runs(host_a, false);
    CHECK(done.hosts == dry.hosts);
    CHECK(db.list_runs({}).size() == 1);
    CHECK_FALSE(db.sku_of_host("a").has_value());
    CHECK_FALSE(db.kept_answer(sku, "in", false).has_value());
    RunSelection old;
    old.before = "2999-01-01";
    CHECK(db.forget_runs(old, false).skus == std::vector<std::string>{sku});
    CHECK(db.sku_keys().empty());
}

TEST_CASE("fleet db: one verification is forgotten by its key or by run key and boot id") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    const auto first = verified_at("boot-1", 900), second = verified_at("boot-2", 1100);
    db.ingest({report_of("a", &first), report_of("a", &second)});
    const auto run = db.list_runs({}).at(0);
    REQUIRE(run.verifications.size() == 2);
    CHECK_THROWS_AS(db.forget_verification(run.run_key + ":nothing", false), FleetDbError);
    CHECK(db.forget_verification(run.run_key + ":boot-2", true).verifications.size() == 1);
    CHECK(db.list_runs({}).at(0).verifications.size() == 2);
    CHECK(db.forget_verification(run.run_key + ":boot-2", false).verifications.at(0).key ==
          run.verifications[1].key);
    CHECK(db.forget_verification(run.verifications[0].key, false).verifications.size() == 1);
    CHECK(db.list_runs({}).at(0).verifications.empty());
    CHECK(db.list_runs({}).size() == 1);  // the run stays
    // As many verifications as before, other ones: another digest.
    const std::string sku = db.sku_keys().at(0);
    db.ingest({report_of("a", &first)});
    const std::string before = db.runs_digest(sku);
    db.forget_verification(run.run_key + ":boot-1", false);
    db.ingest({report_of("a", &second)});
    CHECK(db.runs_digest(sku) != before);
}

TEST_CASE("fleet db: a SKU's runs digest changes with a new run and a new verification only") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    db.ingest({report_of("a")});
    const std::string sku = db.sku_keys().at(0);
    const std::string one = db.runs_digest(sku);
    CHECK(one.size() == 16);
    db.ingest({report_of("a")});  // already stored: the same runs
    CHECK(db.runs_digest(sku) == one);
    db.ingest({report_of("b")});
    const std::string two = db.runs_digest(sku);
    CHECK(two != one);
    const nlohmann::json v = {{"verified", true},
                              {"measured_ms", 900},
                              {"threads", 2},
                              {"ratio", 1.1},
                              {"problems", nlohmann::json::array()}};
    db.ingest({report_of("b", &v)});
    CHECK(db.runs_digest(sku) != two);
    CHECK(db.runs_digest("none/1n/1t/1g/2048k") == content_hash(""));
}

TEST_CASE("fleet db: an answer is kept per SKU and taken only with its inputs") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    db.ingest({report_of("a")});
    const std::string sku = db.sku_keys().at(0);
    CHECK_FALSE(db.kept_answer(sku, "in-1", true).has_value());
    CHECK(db.keep_answer(sku, "in-1", {R"({"n":1})", R"({"fit":1})"}));
    auto kept = db.kept_answer(sku, "in-1", true);
    REQUIRE(kept);
    CHECK(kept->headline == R"({"n":1})");
    CHECK(kept->fit == R"({"fit":1})");
    // Without its fit, the fit is not read: only the headline comes back.
    kept = db.kept_answer(sku, "in-1", false);
    REQUIRE(kept);
    CHECK(kept->headline == R"({"n":1})");
    CHECK(kept->fit.empty());
    CHECK_FALSE(db.kept_answer(sku, "in-2", true).has_value());
    CHECK(db.keep_answer(sku, "in-2", {R"({"n":2})", R"({"fit":2})"}));  // replaces the one before
    CHECK_FALSE(db.kept_answer(sku, "in-1", true).has_value());
    kept = db.kept_answer(sku, "in-2", true);
    REQUIRE(kept);
    CHECK(kept->headline == R"({"n":2})");
    CHECK(kept->fit == R"({"fit":2})");
    CHECK_FALSE(db.kept_answer("none/1n/1t/1g/2048k", "in-2", true).has_value());
    // Another writer holding SQLite's lock: tests/cli/fleet_sqlite.sh.
}

// A newer schema's refusal needs a database edited behind the tool's back:
// tests/cli/lib/fleet.bash does that on both databases.
TEST_CASE("fleet db: a missing file is not created by a reader; passwords stay out of messages") {
    TempDb t;
    CHECK_THROWS_AS(FleetDb::open(t.target(), false), FleetDbError);
    CHECK_FALSE(fs::exists(t.dir / "fleet.db"));
    FleetDb::open(t.target(), true);
    CHECK(FleetDb::open(t.target(), false).schema_version() == latest_schema_version());
    CHECK(parse_db_target("postgresql://u:secret@h/db").display == "postgresql://u:***@h/db");
    CHECK(parse_db_target("postgres:///db?host=/s&password=pw&user=u").display ==
          "postgres:///db?host=/s&password=***&user=u");
    CHECK(parse_db_target("/var/lib/x.db").dialect == Dialect::sqlite);
}

TEST_CASE("fleet db: a batch stores one report at a time; dropped uncommitted, nothing of it") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    {
        auto batch = db.begin_ingest();
        batch.store(report_of("a"));
        batch.store(report_of("b"));
    }
    CHECK(db.sku_keys().empty());
    auto batch = db.begin_ingest();
    batch.store(report_of("a"));
    batch.store(report_of("a"));  // the host and the run as this batch stored them
    batch.store(report_of("b"));
    const auto result = batch.commit();
    CHECK(result.added == std::vector<std::string>{"a.json", "b.json"});
    CHECK(result.skipped == std::vector<std::string>{"a.json"});
    REQUIRE(db.sku_keys().size() == 1);
    CHECK(db.runs_of_sku(db.sku_keys()[0]).size() == 2);
}

TEST_CASE("fleet intake: the stored text is the document without its verification, hashed") {
    const nlohmann::json v = {{"verified", true},
                              {"measured_ms", 900},
                              {"threads", 2},
                              {"ratio", 1.1},
                              {"problems", nlohmann::json::array()}};
    const auto r = report_of("a", &v);
    auto doc = nlohmann::json::parse(fixture_text());
    doc["host"]["hostname"] = "a";
    CHECK(r.document == doc.dump());
    CHECK(r.content_hash == content_hash(r.document));
    REQUIRE(r.facts.verifications.size() == 1);
    CHECK(r.facts.verifications.front().measured_ms == std::uint64_t{900});
}

TEST_CASE("fleet intake: truncated, other version, schema violation: refused with the name") {
    const std::string text = fixture_text();
    auto refusal = [](const std::string& name, const std::string& bytes) -> std::string {
        try {
            read_intake_report(name, bytes);
        } catch (const FleetDbError& e) {
            CHECK(e.kind() == FleetDbError::Kind::usage);
            return e.what();
        } catch (const hugetune::model::InputError& e) {
            // The report's reader names the document as data; the command line prints it.
            CHECK(!e.source().stored);
            return e.source().name + ": " + e.what();
        }
        return "accepted";
    };
    CHECK(refusal("t.json", text.substr(0, text.size() / 2)).rfind("t.json: truncated", 0) == 0);
    auto doc = nlohmann::json::parse(text);
    doc["schema_version"] = 2;
    CHECK(refusal("v.json", doc.dump()).rfind("v.json: schema_version 2", 0) == 0);
    doc = nlohmann::json::parse(text);
    // A field the reader checks itself is refused by its path and fix; the schema covers the rest.
    doc["sku"].erase("nodes");
    CHECK(refusal("s.json", doc.dump()) ==
          "s.json: sku.nodes: missing; give the report written by 'hugetune run'");
    doc = nlohmann::json::parse(text);
    doc.erase("topology");
    CHECK(refusal("s.json", doc.dump()) ==
          "s.json: does not match the report schema: /topology: missing");
    CHECK(content_hash("") == "cbf29ce484222325");  // FNV-1a 64's offset basis
}

TEST_CASE("fleet intake: a report whose warnings list differs from its facts is refused") {
    auto refusal = [](const nlohmann::json& doc) -> std::string {
        try {
            read_intake_report("w.json", doc.dump());
        } catch (const FleetDbError& e) {
            CHECK(e.kind() == FleetDbError::Kind::usage);
            return e.what();
        }
        return "accepted";
    };
    const auto without = [](nlohmann::json doc, const std::string& code) {
        auto& w = doc["warnings"];
        w.erase(std::remove_if(w.begin(), w.end(),
                               [&](const nlohmann::json& x) { return x["code"] == code; }),
                w.end());
        return doc;
    };
    const auto fixture = nlohmann::json::parse(fixture_text());
    CHECK(refusal(fixture) == "accepted");
    // Measured in a VM (virtualization.hypervisor), its list without vm.
    CHECK(refusal(without(fixture, "vm")) ==
          "w.json: its warnings lack vm, which its own facts give: not the list hugetune writes "
          "from these facts; write the report with 'hugetune run' again (docs/fleet.md \"How a "
          "SKU's answer is made\")");
    // A confidence of 0.1 without low_confidence.
    auto low = fixture;
    low["recommendation"]["confidence"] = 0.1;
    CHECK(refusal(low).rfind("w.json: its warnings lack low_confidence, which its own facts give",
                             0) == 0);
    // A code its facts do not give.
    auto bare = without(fixture, "vm");
    bare["virtualization"]["hypervisor"] = false;
    CHECK(refusal(bare) == "accepted");
    bare["warnings"].push_back({{"code", "poor_fit"}, {"message", "The curve does not fit."}});
    CHECK(refusal(bare).rfind("w.json: its warnings list poor_fit, which its own facts do not give",
                              0) == 0);
}

TEST_CASE("fleet intake: the stored text is the report's dump(), whichever way it was written") {
    const auto doc = nlohmann::json::parse(fixture_text());
    const std::string expected = doc.dump();
    // As hugetune writes it (indented), compact, another indent, tabs: one stored text and hash,
    // so a report copied through another tool is still the run already stored.
    for (const std::string& text : {fixture_text(), doc.dump(), doc.dump(4), doc.dump(1, '\t'),
                                    " \n" + doc.dump(2) + "\n\n"}) {
        const auto r = read_intake_report("r.json", text);
        CHECK(r.document == expected);
        CHECK(r.content_hash == content_hash(expected));
    }
    // Not as dump() writes it: a number with a trailing zero, an escape, a verification block
    // (left out of the stored text), keys out of order. The same stored text all the same.
    std::string trailing_zero = doc.dump(2);
    const auto number_at = trailing_zero.find("\": 0.");
    REQUIRE(number_at != std::string::npos);
    const auto number_end = trailing_zero.find_first_not_of("0123456789.", number_at + 3);
    trailing_zero.insert(number_end, "0");
    REQUIRE(nlohmann::json::parse(trailing_zero) == doc);
    CHECK(read_intake_report("z.json", trailing_zero).document == expected);
    std::string escaped = doc.dump();
    const auto name_at = escaped.find("\"hostname\":\"");
    REQUIRE(name_at != std::string::npos);
    escaped.insert(name_at + 12, "\\u0061");  // the host name now begins with an 'a'
    auto with_a = doc;
    with_a["host"]["hostname"] = "a" + doc["host"]["hostname"].get<std::string>();
    CHECK(read_intake_report("e.json", escaped).document == with_a.dump());
    nlohmann::json verified = doc;
    verified["verification"] = {{"verified", true},
                                {"measured_ms", 900},
                                {"threads", 2},
                                {"ratio", 1.1},
                                {"problems", nlohmann::json::array()}};
    CHECK(read_intake_report("v.json", verified.dump(2)).document == expected);
    // Keys out of dump()'s order: stored in its order.
    auto out_of_order = doc.dump();
    const auto cpu_at = out_of_order.find(",\"cpu\":");
    REQUIRE(cpu_at != std::string::npos);
    const auto cpu_end = out_of_order.find('}', cpu_at) + 1;
    const std::string cpu = out_of_order.substr(cpu_at + 1, cpu_end - cpu_at - 1);
    out_of_order.erase(cpu_at, cpu_end - cpu_at);
    out_of_order.insert(out_of_order.size() - 1, "," + cpu);
    REQUIRE(nlohmann::json::parse(out_of_order) == doc);
    CHECK(read_intake_report("o.json", out_of_order).document == expected);
}

TEST_CASE("intake: a generated_at further ahead than the clock rule allows is refused") {
    auto doc = nlohmann::json::parse(fixture_text());
    const std::string stamped = doc["generated_at"].get<std::string>();  // 2026-12-01T10:23:51Z
    const auto at = *hugetune::unix_seconds_of_iso8601_utc(stamped);
    // Ingested a day before the stamp: the host's clock may be that fast.
    CHECK_NOTHROW(read_intake_report("r.json", doc.dump(), at - kMaxClockSkewSeconds));
    // A second more is not a clock but a wrong one; without an ingest time nothing is judged.
    try {
        read_intake_report("r.json", doc.dump(), at - kMaxClockSkewSeconds - 1);
        FAIL("a report from the future was taken");
    } catch (const FleetDbError& e) {
        CHECK(std::string(e.what()).starts_with("r.json: generated_at " + stamped +
                                                " lies 1.0 days"));
        CHECK(std::string(e.what()).find("set the host's clock") != std::string::npos);
    }
    for (const char* future : {"2099-01-01T00:00:00Z", "9999-12-31T23:59:59Z"}) {
        doc["generated_at"] = future;
        CHECK_THROWS_AS(read_intake_report("f.json", doc.dump(), at), FleetDbError);
        CHECK_NOTHROW(read_intake_report("f.json", doc.dump()));
    }
}

TEST_CASE("db target: the password is masked in every form, near-URLs are refused") {
    const auto shown = [](const std::string& value) {
        try {
            return parse_db_target(value).display;
        } catch (const FleetDbError& e) {
            return std::string(e.what());
        }
    };
    for (const std::string value :
         {"postgresql://u:Secret@[::1]x/db", "postgresql://u:Secret@[]/db",
          "postgresql://u:Secret@[::1", "postgresql://u:Leak4%Secret@h/db",
          "PostgreSQL://u:Secret@h/db", "postgresql:u:Secret@h/db", "postgresql//u:Secret@h/db",
          " postgresql://u:Secret@h/db", "postgresql://u:p@Secret@h/db",
          "host=h password=Secret dbname=x", "host=h password='Sec ret' dbname=x",
          "postgresql:///x?host=/tmp&password=Secret", "postgresql:///x?PASSWORD=Secret"}) {
        CAPTURE(value);
        const std::string text = shown(value);
        CHECK(text.find("Secret") == std::string::npos);
        CHECK(text.find("Sec ret") == std::string::npos);
        CHECK((text.find("***") != std::string::npos ||
               text.find("(not shown)") != std::string::npos));
    }
    // Passwords that libpq reads otherwise than they were meant: no part of them is shown, and
    // a string libpq cannot read, or reads with the password's rest as a host or port, is
    // refused.
    for (const std::string value :
         {"postgresql://u:First@Second@host/db", "postgresql://u:First/Second@host/db",
          "postgresql:///db?host=/tmp&password=First&Second", "host=h password=First Second",
          "host=h password=First\\ Second dbname=x"}) {
        CAPTURE(value);
        const std::string text = shown(value);
        CHECK(text.find("First") == std::string::npos);
        CHECK(text.find("Second") == std::string::npos);
    }
    CHECK_THROWS_WITH_AS(parse_db_target("postgresql://u:First@Second@host/db"),
                         doctest::Contains("with a host name with '@'"), FleetDbError);
    CHECK_THROWS_WITH_AS(parse_db_target("host=h password=First Second"),
                         doctest::Contains("libpq cannot read"), FleetDbError);
    // Whatever libpq quotes of the value, its decoded password included.
    const DbTarget t = parse_db_target("postgresql://u:p%41ss%25word@h/db");
    CHECK(masked("token \"p%41ss%25word\" and pAss%word", t.secrets) == "token \"***\" and ***");
    // A near-URL is no SQLite path: refused, saying how to write one.
    CHECK_THROWS_WITH_AS(parse_db_target("PostgreSQL://u@h/db"),
                         doctest::Contains("looks like a PostgreSQL connection URL but is not one"),
                         FleetDbError);
    CHECK(parse_db_target("/var/lib/hugetune/fleet.db").dialect == Dialect::sqlite);
    CHECK(parse_db_target("postgres.db").dialect == Dialect::sqlite);
}

TEST_CASE("fleet db: another report of a host at the same time is a conflict, stored once") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    auto doc = nlohmann::json::parse(fixture_text());
    doc["host"]["hostname"] = "a";
    const IntakeReport first = read_intake_report("a.json", doc.dump());
    doc["sweep"]["points"][0]["samples_seconds"][0] =
        doc["sweep"]["points"][0]["samples_seconds"][0].get<double>() * 1.5;
    const IntakeReport edited = read_intake_report("a-edited.json", doc.dump());
    REQUIRE(first.content_hash != edited.content_hash);
    // In one batch, and in a later one: the first stored stands, the other is said.
    const auto one = db.ingest({first, edited});
    CHECK(one.added == std::vector<std::string>{"a.json"});
    CHECK(one.conflicts == std::vector<std::string>{"a-edited.json"});
    const auto later = db.ingest({edited, first});
    CHECK(later.added.empty());
    CHECK(later.conflicts == std::vector<std::string>{"a-edited.json"});
    CHECK(later.skipped == std::vector<std::string>{"a.json"});
    CHECK(db.runs_of_sku(db.sku_keys().at(0)).size() == 1);
}

TEST_CASE("fleet intake: a host name the exports cannot carry is refused, one DNS compares kept") {
    CHECK(report_of("WEB-17.").facts.host == "web-17");
    CHECK(report_of("Web-17.Example.com").facts.host == "web-17.example.com");
    try {
        report_of("[list]");
        FAIL("[list] was accepted");
    } catch (const FleetDbError& e) {
        CHECK(e.kind() == FleetDbError::Kind::usage);
        const std::string message = e.what();
        CHECK(message.rfind("[list].json: host name '[list]' is not a DNS host name", 0) == 0);
        CHECK(message.find("hostnamectl set-hostname") != std::string::npos);
    }
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    db.ingest({report_of("WEB-17")});
    CHECK(db.sku_of_host("web-17").has_value());
    CHECK_FALSE(db.sku_of_host("WEB-17").has_value());
}

TEST_CASE("fleet db: a boot is stored once, by host and boot id, or by its record without time") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    hugetune::model::BootRecord r;
    r.recorded_at = "2026-12-03T10:00:00Z";
    r.host = "web-1";
    r.boot_id = "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60";
    r.allocation_line.present = false;
    r.allocation_line.absent_reason = hugetune::model::Warning{"no_log", "no kernel message"};
    auto first = intake_boot("a.json", r);
    CHECK(first.boot_key == "boot web-1 3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60");
    r.recorded_at = "2026-12-03T10:05:00Z";  // the same boot, recorded again
    auto again = intake_boot("b.json", r);
    CHECK(again.boot_key == first.boot_key);
    CHECK(db.store_boot_record(first));
    CHECK_FALSE(db.store_boot_record(again));
    // A saved log's record: the same boot whenever it is recorded, another one by its content.
    r.boot_id.reset();
    const auto saved = intake_boot("c.json", r);
    r.recorded_at = "2026-12-03T11:00:00Z";
    CHECK(intake_boot("d.json", r).boot_key == saved.boot_key);
    CHECK(saved.boot_key.rfind("record ", 0) == 0);
    r.kernel_release = "6.15.1";
    CHECK(intake_boot("e.json", r).boot_key != saved.boot_key);
    // In a batch, beside reports.
    auto batch = db.begin_ingest();
    batch.store(saved);
    batch.store(intake_boot("e.json", r));
    batch.store(saved);
    const auto result = batch.commit();
    CHECK(result.boots_added == std::vector<std::string>{"c.json", "e.json"});
    CHECK(result.boots_skipped == std::vector<std::string>{"c.json"});
}

TEST_CASE("fleet intake: a record made in the program is held to its reader's rules") {
    // What `verify --fleet-db` made of a gathered tree: a release uname never prints, a line's
    // thread count past any the kernel takes (the database's int column held it as 8).
    hugetune::model::BootRecord r;
    r.recorded_at = "2026-12-03T10:00:00Z";
    r.host = "web-1";
    r.pool = hugetune::model::BootRecordPool{4096, 2048};
    r.threads = 4294967304ULL;
    r.milliseconds = 300;
    r.allocation_line.present = true;
    r.allocation_line.text = "HugeTLB: allocation took 300ms with hugepage_allocation_threads=" +
                             std::to_string(*r.threads);
    const auto refusal = [](const hugetune::model::BootRecord& record) -> std::string {
        try {
            (void)intake_boot("this boot's record", record);
        } catch (const FleetDbError& e) {
            return e.what();
        }
        return "";
    };
    CHECK(refusal(r).starts_with("this boot's record: threads: is 4294967304; must be"));
    r.threads = 8;
    r.kernel_release = "6.15 generic";
    CHECK(refusal(r).starts_with("this boot's record: kernel_release: '6.15 generic' is not"));
    r.kernel_release = "6.15.0";
    CHECK(refusal(r).empty());
}

TEST_CASE("fleet intake: verify --json's output is taken for the boot record it holds") {
    hugetune::model::BootRecord r;
    r.recorded_at = "2026-12-03T10:00:00Z";
    r.host = "web-1";
    r.boot_id = "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60";
    r.allocation_line.absent_reason = hugetune::model::Warning{"no_log", "no kernel message"};
    nlohmann::json printed = {{"verified", false}, {"problems", nlohmann::json::array()}};
    printed[hugetune::model::kBootRecordMember] = to_json(r);
    auto read = read_intake_document("verify.json", printed.dump());
    REQUIRE(std::holds_alternative<IntakeBoot>(read));
    CHECK(std::get<IntakeBoot>(read).boot_key == intake_boot("x", r).boot_key);
    CHECK(read_intake_boot("verify.json", printed.dump(2)).record.host == "web-1");
    // Its errors name the record's members by their path in what was given.
    printed[hugetune::model::kBootRecordMember]["threads"] = 5;
    try {
        (void)read_intake_document("verify.json", printed.dump());
        FAIL("a record with numbers and no line was taken");
    } catch (const std::exception& e) {
        CHECK_MESSAGE(std::string(e.what()).find("boot_record.threads: ") != std::string::npos,
                      e.what());
    }
    // One whole record on a line is how standard input's JSON Lines are told from a document.
    CHECK(is_boot_record_line(to_json(r).dump()));
    CHECK_FALSE(is_boot_record_line("{"));
    CHECK_FALSE(is_boot_record_line(R"({"schema_version": 3})"));
}

namespace {

// A SKU's boots of every kind the tally tells apart: two kernel families, three releases, HVO
// on, off and unknown, hosts booting once or four times, at three values, on two pools.
std::vector<IntakeBoot> mixed_boots(const hugetune::model::SkuKey& sku) {
    std::vector<IntakeBoot> out;
    std::uint64_t state = 7;
    const auto next = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return state >> 33;
    };
    const char* releases[] = {"6.15.2-cloud-amd64", "6.15.9", "6.16.1"};
    for (int h = 0; h < 60; ++h) {
        const int boots = 1 + static_cast<int>(next() % 4);
        for (int b = 0; b < boots; ++b) {
            hugetune::model::BootRecord r;
            r.recorded_at = "2026-12-03T10:00:00Z";
            r.host = "host-" + std::to_string(h);
            r.sku = sku;
            char id[40];  // a boot id's form, unique per host and boot
            std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%06x%06x", h, b);
            r.boot_id = id;
            r.kernel_release = releases[h % 7 == 0 ? 2 : h % 2];
            const std::uint64_t pages = h % 3 == 0 ? 4096 : 8192;
            r.pool = hugetune::model::BootRecordPool{pages, 2048};
            r.threads = std::uint64_t{4} << (next() % 3);
            r.milliseconds = 300 + next() % 700;
            r.hvo = h % 11 == 0 ? std::optional<bool>() : std::optional<bool>(h % 5 == 0);
            r.allocation_line.present = true;
            r.allocation_line.text =
                "HugeTLB: allocation took " + std::to_string(*r.milliseconds) +
                "ms with hugepage_allocation_threads=" + std::to_string(*r.threads);
            auto in = intake_boot("boots.jsonl", r);
            in.line = out.size() + 1;
            out.push_back(std::move(in));
        }
    }
    return out;
}

}  // namespace

TEST_CASE("fleet db: the database's tally of a SKU's boots is the client's, bit for bit") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    // Reports of hosts 0 to 54 of the fixture's SKU; hosts 55 to 59 are known by their boots
    // alone, which count for nothing.
    std::vector<IntakeReport> reports;
    for (int h = 0; h < 55; ++h)
        reports.push_back(report_of("host-" + std::to_string(h)));
    db.ingest(reports);
    const auto sku = hugetune::model::fleet::parse_sku_key(db.sku_keys().at(0));
    const auto boots = mixed_boots(sku);
    auto batch = db.begin_ingest();
    for (const auto& b : boots)
        batch.store(b);
    batch.store(boots.front());  // the same boot again: counted as stored before
    const auto result = batch.commit();
    REQUIRE(result.boot_lines.size() == 1);
    CHECK(result.boot_lines[0].file == "boots.jsonl");
    CHECK(result.boot_lines[0].added == static_cast<int>(boots.size()));
    CHECK(result.boot_lines[0].stored_before == 1);
    CHECK(result.boots_added.empty());

    const std::string key = hugetune::model::fleet::to_string(sku);
    const auto reporting = report_hosts(db, key);
    const auto in_db = db.boot_tally(key, reporting);
    const auto in_client = hugetune::model::fleet::tally_boots(db.boots_of_sku(key, reporting));
    REQUIRE(in_db.groups.size() == in_client.groups.size());
    CHECK(in_db.groups.size() > 3);
    CHECK(in_db.compared.kernel_family == in_client.compared.kernel_family);
    CHECK(in_db.compared.kernel_releases == in_client.compared.kernel_releases);
    CHECK(in_db.compared.kernel_releases.size() == 2);  // 6.15.2-cloud-amd64 and 6.15.9
    CHECK(in_db.compared.hvo == in_client.compared.hvo);
    REQUIRE(in_db.host_medians.size() == in_client.host_medians.size());
    for (std::size_t i = 0; i < in_db.host_medians.size(); ++i) {
        const auto& a = in_db.host_medians[i];
        const auto& b = in_client.host_medians[i];
        CHECK(a.host == b.host);
        CHECK(a.threads == b.threads);
        CHECK(a.boots == b.boots);
        CHECK(a.ms_per_1000_pages == b.ms_per_1000_pages);  // the same bits
    }
    CHECK(in_db.pool_pages == in_client.pool_pages);
    REQUIRE(in_db.families.size() == in_client.families.size());
    int hosts = 0;
    for (std::size_t i = 0; i < in_db.families.size(); ++i) {
        CHECK(in_db.families[i].kernel_family == in_client.families[i].kernel_family);
        CHECK(in_db.families[i].hvo == in_client.families[i].hvo);
        CHECK(in_db.families[i].hosts == in_client.families[i].hosts);
        hosts += in_db.families[i].hosts;
    }
    CHECK(hosts == 55);  // each host in one family; the five without a report not at all
    for (const auto& m : in_db.host_medians)
        CHECK(std::stoi(m.host.substr(5)) < 55);
    // A SKU without boots: nothing to tally.
    CHECK(db.boot_tally("zen2/1n/1t/1g/2048k", reporting).groups.empty());
}

TEST_CASE(
    "fleet db: a machine's boots under its short name, its FQDNs, its other names: one vote") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    // twin-b carries twin-a's samples: one machine reported under two names.
    auto twin = hugetune::test::as_host(nlohmann::json::parse(fixture_text()), "twin-a");
    twin["host"]["hostname"] = "twin-b";
    db.ingest({own_report_of("web-17.example.com"), own_report_of("db-1"),
               own_report_of("app-3.a.example"), own_report_of("app-3.b.example"),
               own_report_of("twin-a"), read_intake_report("twin-b.json", twin.dump())});
    const std::string key = db.sku_keys().at(0);
    auto batch = db.begin_ingest();
    int serial = 0;
    const auto boot = [&](const std::string& host, std::uint64_t ms) {
        batch.store(line_boot(key, host, ++serial, ms));
    };
    boot("web-17", 400);  // the short name of web-17.example.com's report
    boot("web-17.example.com", 500);
    boot("web-17.example.com", 700);
    boot("db-1.example.com", 500);  // an FQDN of db-1's report
    boot("app-3", 100);             // two reports' FQDNs begin with it: ambiguous
    boot("app-3", 100);
    boot("twin-a", 500);
    boot("twin-b", 600);
    boot("web-17.other.example", 100);  // another machine than web-17's
    boot("ghost", 100);
    batch.commit();
    auto runs = db.runs_of_sku(key);
    const hugetune::model::fleet::BootHosts hosts(
        hugetune::model::fleet::read_host_runs(std::move(runs), hugetune::model::InputSource()));
    const auto in_db = db.boot_tally(key, hosts);
    const auto in_client = hugetune::model::fleet::tally_boots(db.boots_of_sku(key, hosts));
    for (const auto* tally : {&in_db, &in_client}) {
        REQUIRE(tally->host_medians.size() == 3);
        auto medians = tally->host_medians;
        std::sort(medians.begin(), medians.end(),
                  [](const auto& a, const auto& b) { return a.host < b.host; });
        CHECK(medians[0].host == "db-1");
        CHECK(medians[0].boots == 1);
        CHECK(medians[1].host == "twin-a");
        CHECK(medians[1].boots == 2);
        CHECK(medians[2].host == "web-17.example.com");
        CHECK(medians[2].boots == 3);
        CHECK(medians[2].ms_per_1000_pages == 500.0 * 1000 / 8192);
        REQUIRE(tally->families.size() == 1);
        CHECK(tally->families[0].hosts == 3);
        REQUIRE(tally->groups.size() == 1);
        CHECK(tally->groups[0].boots == 6);
        REQUIRE(tally->ambiguous_boots.size() == 1);
        CHECK(tally->ambiguous_boots[0].threads == 16);
        CHECK(tally->ambiguous_boots[0].hosts == 1);
        CHECK(tally->ambiguous_boots[0].boots == 2);
        CHECK(tally->pool_pages == in_db.pool_pages);
    }
    // Every report's name its own host: the twins are two hosts, web-17 still web-17's.
    const auto by_name = db.boot_tally(key, report_hosts(db, key));
    CHECK(by_name.host_medians.size() == 4);
    CHECK(by_name.ambiguous_boots.size() == 1);
}

TEST_CASE("fleet db: boot_records holds every row to the reader's rules, whoever writes it") {
    TempDb t;
    { auto db = FleetDb::open(t.target(), true); }
    // SQLite's own interface, as any writer beside hugetune would use it.
    sqlite3* sql = nullptr;
    REQUIRE(sqlite3_open((t.dir / "fleet.db").c_str(), &sql) == SQLITE_OK);
    const std::string columns =
        "boot_key, host, boot_id, kernel_release, pool_pages, page_size_kb, threads,"
        " milliseconds, line_present, absent_code, recorded_at, record";
    const auto insert = [&](const std::string& values) {
        const std::string statement =
            "INSERT INTO boot_records (" + columns + ") VALUES (" + values + ")";
        return sqlite3_exec(sql, statement.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    };
    const std::string record =
        R"('{"kind": "hugetune-boot-record", "host": "web-1", "boot_id": null,)"
        R"( "kernel_release": "6.15.3", "recorded_at": "2026-12-01T10:00:00Z", "threads": 8,)"
        R"( "milliseconds": 900, "pool": {"pages": 1024, "page_size_kb": 2048}}')";
    const std::string good =
        "'record k1', 'web-1', NULL, '6.15.3', 1024, 2048, 8, 900, 1, NULL,"
        " '2026-12-01T10:00:00Z', " +
        record;
    CHECK(insert(good));
    const auto with = [&](const std::string& from, const std::string& to) {
        std::string v = good;
        v.replace(v.find(from), from.size(), to);
        v.replace(1, 9, "record k2");
        return v;
    };
    CHECK_FALSE(insert(with("8, 900", "99999, 900")));  // threads above 4096
    CHECK_FALSE(insert(with("8, 900", "8, -5000")));    // a negative time
    CHECK_FALSE(insert(with("'2026-12-01T10:00:00Z', '{", "'not a time', '{")));
    CHECK_FALSE(insert(with("'web-1', NULL", "'WEB-1.', NULL")));       // not the host-name rule
    CHECK_FALSE(insert(with("'6.15.3', 1024", "'6.15 3', 1024")));      // a release with a space
    CHECK_FALSE(insert(with("1, NULL, '2026", "1, 'no_log', '2026")));  // a present line's reason
    CHECK_FALSE(insert(with(record, "'not json'")));
    CHECK_FALSE(insert(with("8, 900", "16, 900")));  // the record says 8
    sqlite3_stmt* count = nullptr;
    REQUIRE(sqlite3_prepare_v2(sql, "SELECT COUNT(*) FROM boot_records", -1, &count, nullptr) ==
            SQLITE_OK);
    REQUIRE(sqlite3_step(count) == SQLITE_ROW);
    CHECK(sqlite3_column_int(count, 0) == 1);
    sqlite3_finalize(count);
    sqlite3_close(sql);
}

namespace {

// The count of rows `query` (one number) gives.
int count_of(sqlite3* sql, const std::string& query) {
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(sql, query.c_str(), -1, &st, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    const int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

// What migration 18 made taken away (boot_records.reported, its indexes, the triggers that keep
// it), for a test that takes a database back to an older version.
void undo_boot_reported(sqlite3* sql) {
    const auto exec = [&](const std::string& statement) {
        INFO(statement);
        REQUIRE(sqlite3_exec(sql, statement.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    };
    std::vector<std::string> triggers;
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(sql,
                               "SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql"
                               " LIKE '%reported%'",
                               -1, &st, nullptr) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW)
        triggers.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    REQUIRE(triggers.size() == 7);
    for (const auto& name : triggers)
        exec("DROP TRIGGER " + name);
    exec("DROP INDEX boot_records_tally");
    exec("DROP INDEX boot_records_by_host");
    exec("ALTER TABLE boot_records DROP COLUMN reported");
}

}  // namespace

TEST_CASE("fleet db: a SKU's runs read a few at a time come whole and in order, as read at once") {
    using hugetune::model::fleet::FleetRun;
    TempDb t;
    std::string sku;
    {
        auto db = FleetDb::open(t.target(), true);
        std::vector<IntakeReport> reports;
        for (int i = 0; i < 7; ++i)
            reports.push_back(own_report_of("h" + std::to_string(i)));
        auto verified = hugetune::test::as_host(nlohmann::json::parse(fixture_text()), "h5");
        verified["verification"] = verified_at("boot-1", 900);
        reports.push_back(read_intake_report("h5.json", verified.dump()));
        db.ingest(reports);
        sku = db.sku_keys().at(0);
    }
    sqlite3* sql = nullptr;
    REQUIRE(sqlite3_open((t.dir / "fleet.db").c_str(), &sql) == SQLITE_OK);
    const std::string run_of_h3 =
        "(SELECT r.id FROM runs r JOIN hosts h ON h.id = r.host_id WHERE h.hostname = 'h3')";
    // h3's digest damaged: its report is read in its place, in the middle of a batch.
    REQUIRE(sqlite3_exec(
                sql,
                ("UPDATE run_digests SET digest = 'damaged' WHERE run_id = " + run_of_h3).c_str(),
                nullptr, nullptr, nullptr) == SQLITE_OK);
    auto db = FleetDb::open(t.target(), true);
    const auto whole = db.runs_of_sku(sku);
    REQUIRE(whole.size() == 7);
    for (const std::size_t per_batch : {1, 2, 3, 7}) {
        CAPTURE(per_batch);
        std::vector<FleetRun> runs;
        db.runs_of_sku(
            sku, [&runs](FleetRun&& run) { runs.push_back(std::move(run)); }, per_batch);
        REQUIRE(runs.size() == whole.size());
        for (std::size_t i = 0; i < runs.size(); ++i) {
            CAPTURE(i);
            CHECK(runs[i].host == "h" + std::to_string(i));
            CHECK(runs[i].host == whole[i].host);
            CHECK(runs[i].run_key == whole[i].run_key);
            const bool damaged = runs[i].host == "h3";
            CHECK((runs[i].facts == nullptr) == damaged);
            CHECK(runs[i].report.is_null() == !damaged);
            if (runs[i].facts)
                CHECK(hugetune::model::fleet::to_string(runs[i].facts->sku) == sku);
            CHECK(runs[i].verifications.size() == (runs[i].host == "h5" ? 1U : 0U));
        }
    }
    // Its report not JSON either, in the second of four batches: the read fails naming the run,
    // after the runs before it were handed out.
    REQUIRE(sqlite3_exec(sql,
                         ("UPDATE runs SET report = 'not json' WHERE id = " + run_of_h3).c_str(),
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(sql);
    std::size_t taken = 0;
    CHECK_THROWS_WITH_AS(db.runs_of_sku(
                             sku, [&taken](FleetRun&&) { ++taken; }, 2),
                         doctest::Contains("is not JSON; the database is damaged"), FleetDbError);
    CHECK(taken == 3);
}

TEST_CASE(
    "fleet db: a refused stored verification is named by key and host, the first of several") {
    using hugetune::model::fleet::FleetRun;
    TempDb t;
    std::string sku;
    {
        auto db = FleetDb::open(t.target(), true);
        std::vector<IntakeReport> reports;
        for (int i = 0; i < 4; ++i) {
            auto doc = hugetune::test::as_host(nlohmann::json::parse(fixture_text()),
                                               "h" + std::to_string(i));
            doc["verification"] = verified_at("boot-" + std::to_string(i), 900);
            reports.push_back(read_intake_report("h" + std::to_string(i) + ".json", doc.dump()));
        }
        db.ingest(reports);
        sku = db.sku_keys().at(0);
        std::size_t read = 0;
        db.runs_of_sku(sku, [&read](FleetRun&& run) {
            CHECK(run.verifications.size() == 1);
            CHECK(run.verifications.at(0).verification.boot_id == "boot-" + run.host.substr(1));
            ++read;
        });
        CHECK(read == 4);
    }
    // h3's block and h1's forged, h3's first: h1's was stored before h3's (its report was
    // ingested first), so it is the one named, whichever block the reading meets first.
    sqlite3* sql = nullptr;
    REQUIRE(sqlite3_open((t.dir / "fleet.db").c_str(), &sql) == SQLITE_OK);
    const auto forge = [&](const std::string& host) {
        const std::string update =
            "UPDATE verifications SET block = json_set(block, '$.ratio', 5.0) WHERE run_id IN"
            " (SELECT r.id FROM runs r JOIN hosts h ON h.id = r.host_id WHERE h.hostname = '" +
            host + "')";
        REQUIRE(sqlite3_exec(sql, update.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    };
    forge("h3");
    forge("h1");
    sqlite3_close(sql);
    auto db = FleetDb::open(t.target(), false);
    std::size_t taken = 0;
    try {
        db.runs_of_sku(sku, [&taken](FleetRun&&) { ++taken; });
        FAIL("a forged block was read");
    } catch (const hugetune::model::InputError& e) {
        CHECK(e.source().stored);
        CHECK(e.source().name.find(" of host h1") != std::string::npos);
        CHECK(std::string(e.what()).find("verification.ratio") != std::string::npos);
        CHECK(std::string(e.what()).find("hugetune fleet forget verification ") !=
              std::string::npos);
    }
    CHECK(taken == 0);  // refused before any run is handed out
}

TEST_CASE("fleet db: boot_records holds rows to the report's clock and host rules") {
    TempDb t;
    { auto db = FleetDb::open(t.target(), true); }
    sqlite3* sql = nullptr;
    REQUIRE(sqlite3_open((t.dir / "fleet.db").c_str(), &sql) == SQLITE_OK);
    const auto insert = [&](const std::string& key, const std::string& host, const std::string& at,
                            const std::string& record_host,
                            const std::string& virtualization = "null") {
        const std::string boot_id = "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60";
        const std::string record = R"({"kind": "hugetune-boot-record", "host": ")" + record_host +
                                   R"(", "boot_id": ")" + boot_id +
                                   R"(", "kernel_release": null, "recorded_at": ")" + at +
                                   R"(", "threads": null, "milliseconds": null, "pool": null,)" +
                                   R"( "virtualization": )" + virtualization + "}";
        const std::string statement =
            "INSERT INTO boot_records (boot_key, host, boot_id, line_present, absent_code,"
            " recorded_at, record) VALUES ('" +
            key + "', '" + host + "', '" + boot_id + "', 0, 'no_log', '" + at + "', '" + record +
            "')";
        return sqlite3_exec(sql, statement.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    };
    const std::string key = "boot web-1 3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60";
    const std::string now = hugetune::utc_now();
    // Year 0000, before any hugetune made a record, and 2099, ahead of the database's clock.
    CHECK_FALSE(insert(key, "web-1", "0000-01-01T00:00:00Z", "web-1"));
    CHECK_FALSE(insert(key, "web-1", "2024-12-31T23:59:59Z", "web-1"));
    CHECK_FALSE(insert(key, "web-1", "2099-01-01T00:00:00Z", "web-1"));
    // A key that is not the boot's own host and boot id.
    CHECK_FALSE(insert("boot web-2 3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60", "web-1", now, "web-1"));
    CHECK_FALSE(insert("anything", "web-1", now, "web-1"));
    // A virtualization that is not a name.
    CHECK_FALSE(insert(key, "web-1", now, "web-1", "5"));
    CHECK_FALSE(insert(key, "web-1", now, "web-1", "\"\""));
    CHECK(count_of(sql, "SELECT COUNT(*) FROM boot_records") == 0);
    // The record's host as the host-name rule compares it; the column in its canonical form.
    CHECK_FALSE(insert(key, "WEB-1", now, "WEB-1."));
    CHECK(insert(key, "web-1", now, "WEB-1.", "\"KVM\""));
    // The virtualization is the record's, derived: no writer sets it apart.
    CHECK(count_of(sql, "SELECT COUNT(*) FROM boot_records WHERE virtualization = 'KVM'") == 1);
    CHECK(sqlite3_exec(sql, "UPDATE boot_records SET virtualization = 'none'", nullptr, nullptr,
                       nullptr) != SQLITE_OK);
    CHECK(sqlite3_exec(sql, "UPDATE boot_records SET recorded_at = '2099-01-01T00:00:00Z'", nullptr,
                       nullptr, nullptr) != SQLITE_OK);
    sqlite3_close(sql);
}

TEST_CASE("intake: a recorded_at further ahead than the clock rule allows is refused") {
    hugetune::model::BootRecord r;
    r.recorded_at = "2099-01-01T00:00:00Z";
    r.host = "web-1";
    r.allocation_line.absent_reason = hugetune::model::Warning{"no_log", "no kernel message"};
    const auto at = *hugetune::unix_seconds_of_iso8601_utc(r.recorded_at);
    CHECK_NOTHROW(intake_boot("b.json", r, at - kMaxClockSkewSeconds));
    try {
        intake_boot("b.json", r, hugetune::unix_now_seconds());
        FAIL("a boot record from 2099 was taken");
    } catch (const FleetDbError& e) {
        CHECK(e.kind() == FleetDbError::Kind::usage);
        CHECK(std::string(e.what()).starts_with("b.json: recorded_at 2099-01-01T00:00:00Z lies "));
        CHECK(std::string(e.what()).find("set the host's clock") != std::string::npos);
    }
    // Read from its text, as fleet ingest and a host's spool read it.
    const std::string text = hugetune::model::to_json(r).dump();
    CHECK_THROWS_AS(read_intake_boot("b.json", text, hugetune::unix_now_seconds()), FleetDbError);
    CHECK_NOTHROW(read_intake_boot("b.json", text));
}

TEST_CASE("fleet db: boots recorded in virtual machines are counted apart, never compared") {
    TempDb t;
    auto db = FleetDb::open(t.target(), true);
    std::vector<IntakeReport> reports;
    for (int h = 0; h < 10; ++h)
        reports.push_back(report_of("host-" + std::to_string(h)));
    db.ingest(reports);
    const std::string key = db.sku_keys().at(0);
    auto batch = db.begin_ingest();
    // Hosts 0 to 4 on bare metal, 5 to 7 in KVM guests, 8 and 9 not saying (records of before).
    for (int h = 0; h < 10; ++h) {
        auto r = line_record(key, "host-" + std::to_string(h), h, 500);
        if (h < 5)
            r.virtualization = "none";
        else if (h < 8)
            r.virtualization = "KVM";
        batch.store(intake_boot("boots.jsonl", r));
    }
    batch.commit();
    const auto hosts = report_hosts(db, key);
    const auto tally = db.boot_tally(key, hosts);
    REQUIRE(tally.virtual_boots.size() == 1);
    CHECK(tally.virtual_boots[0].threads == 16);
    CHECK(tally.virtual_boots[0].hosts == 3);
    CHECK(tally.virtual_boots[0].boots == 3);
    REQUIRE(tally.families.size() == 1);
    CHECK(tally.families[0].hosts == 7);
    CHECK(db.boots_of_sku(key, hosts).size() == 7);
    // A SKU answered with its VMs' reports accepted is one of VMs: their boots count too.
    const auto of_vms = db.boot_tally(key, hosts, true);
    CHECK(of_vms.virtual_boots.empty());
    REQUIRE(of_vms.families.size() == 1);
    CHECK(of_vms.families[0].hosts == 10);
}

TEST_CASE("fleet db: boot rows of before the clock and host rules are carried over or set aside") {
    TempDb t;
    { auto db = FleetDb::open(t.target(), true); }
    sqlite3* sql = nullptr;
    REQUIRE(sqlite3_open((t.dir / "fleet.db").c_str(), &sql) == SQLITE_OK);
    const auto exec = [&](const std::string& statement) {
        return sqlite3_exec(sql, statement.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    };
    // boot_records as versions 9 and 11 made it, before any rule: a record of version 1 (no
    // virtualization), one of 2099 and one of year 0000.
    undo_boot_reported(sql);
    REQUIRE(exec("DROP TABLE boot_records"));
    for (const int version : {9, 11})
        for (const auto& statement : migration_statements(version, Dialect::sqlite))
            REQUIRE(exec(statement));
    const auto row = [&](const std::string& id, const std::string& at) {
        const std::string boot_id = "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f6" + id;
        const std::string record = R"({"kind": "hugetune-boot-record", "schema_version": 1,)"
                                   R"( "host": "web-1", "boot_id": ")" +
                                   boot_id + R"(", "kernel_release": null, "recorded_at": ")" + at +
                                   R"(", "threads": null, "milliseconds": null, "pool": null})";
        return exec(
            "INSERT INTO boot_records (boot_key, host, boot_id, line_present, absent_code,"
            " recorded_at, record) VALUES ('boot web-1 " +
            boot_id + "', 'web-1', '" + boot_id + "', 0, 'no_log', '" + at + "', '" + record +
            "')");
    };
    REQUIRE(row("1", "2026-12-01T10:00:00Z"));
    REQUIRE(row("2", "2099-01-01T00:00:00Z"));
    REQUIRE(row("3", "0000-01-01T00:00:00Z"));
    // Migration 17's column, which a database of version 12 lacks.
    REQUIRE(exec("ALTER TABLE sku_answers DROP COLUMN fit"));
    REQUIRE(exec("UPDATE schema_info SET version = 12"));
    { auto db = FleetDb::open(t.target(), true); }
    CHECK(count_of(sql, "SELECT version FROM schema_info") == latest_schema_version());
    CHECK(count_of(sql,
                   "SELECT COUNT(*) FROM boot_records WHERE boot_id LIKE '%1' AND"
                   " virtualization IS NULL") == 1);
    CHECK(count_of(sql, "SELECT COUNT(*) FROM boot_records") == 1);
    CHECK(count_of(sql, "SELECT COUNT(*) FROM boot_records_refused") == 2);
    sqlite3_close(sql);
}

TEST_CASE("fleet db: migration 16 writes each digest again with its run's hardware identity") {
    TempDb t;
    auto with_identity = [](const std::string& host) {
        auto doc = nlohmann::json::parse(fixture_text());
        doc["host"]["hostname"] = host;
        doc["host"]["hardware_identity"] = {
            {"source", "machine_id"},
            {"sha256", hugetune::model::identity_hash(hugetune::model::IdentitySource::machine_id,
                                                      "5f2c1e0b9a7d4c3e8b6a0f1d2e3c4b5a")}};
        return read_intake_report(host + ".json", doc.dump());
    };
    {
        auto db = FleetDb::open(t.target(), true);
        db.ingest({with_identity("a"), report_of("b")});
    }
    sqlite3* sql = nullptr;
    REQUIRE(sqlite3_open((t.dir / "fleet.db").c_str(), &sql) == SQLITE_OK);
    const auto exec = [&](const std::string& statement) {
        return sqlite3_exec(sql, statement.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    };
    // The database as version 15 left it: digests of version 2, without the identity, and an
    // answer kept.
    REQUIRE(
        exec("UPDATE run_digests SET digest = json_set(json_remove(digest, '$.hardware'),"
             " '$.v', 2)"));
    REQUIRE(exec("ALTER TABLE sku_answers DROP COLUMN fit"));  // migration 17's
    undo_boot_reported(sql);
    REQUIRE(exec("INSERT INTO sku_answers (sku_id, inputs, answer) SELECT id, 'x', 'y' FROM skus"));
    REQUIRE(exec("UPDATE schema_info SET version = 15"));
    REQUIRE(count_of(sql, "SELECT COUNT(*) FROM run_digests WHERE digest LIKE '%\"hardware\"%'") ==
            0);
    {
        auto db = FleetDb::open(t.target(), true);
        CHECK(db.schema_version() == latest_schema_version());
        const auto runs = db.runs_of_sku(db.sku_keys().at(0));
        REQUIRE(runs.size() == 2);
        for (const auto& run : runs) {
            CAPTURE(run.host);
            REQUIRE(run.facts);  // from the digest
            CHECK(run.facts->hardware.has_value() == (run.host == "a"));
        }
    }
    CHECK(count_of(sql, "SELECT COUNT(*) FROM run_digests WHERE digest LIKE '%\"v\":3%'") == 2);
    CHECK(count_of(sql,
                   "SELECT COUNT(*) FROM run_digests WHERE digest LIKE"
                   " '%\"hardware\":[\"machine_id\",%'") == 1);
    CHECK(count_of(sql, "SELECT COUNT(*) FROM sku_answers") == 0);
    sqlite3_close(sql);
}

TEST_CASE("fleet db: a boot counts while a run of its SKU names its host, whoever changes what") {
    TempDb t;
    std::string key;
    {
        auto db = FleetDb::open(t.target(), true);
        db.ingest({own_report_of("host-0")});
        key = db.sku_keys().at(0);
        auto batch = db.begin_ingest();
        int serial = 0;
        for (const std::string host : {"host-0", "late-1", "ghost"})
            batch.store(line_boot(key, host, ++serial, 500));
        batch.commit();
        CHECK(db.boot_tally(key, report_hosts(db, key)).host_medians.size() == 1);
        // late-1's report comes after its boot: the boot counts from then on.
        db.ingest({own_report_of("late-1")});
        const auto tally = db.boot_tally(key, report_hosts(db, key));
        REQUIRE(tally.host_medians.size() == 2);
        CHECK(tally.host_medians[1].host == "late-1");
    }
    sqlite3* sql = nullptr;
    REQUIRE(sqlite3_open((t.dir / "fleet.db").c_str(), &sql) == SQLITE_OK);
    const auto exec = [&](const std::string& statement) {
        INFO(statement);
        REQUIRE(sqlite3_exec(sql, statement.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    };
    const auto reported = [&](const std::string& host) {
        return count_of(sql, "SELECT reported FROM boot_records WHERE host = '" + host + "'");
    };
    CHECK(reported("host-0") == 1);
    CHECK(reported("late-1") == 1);
    CHECK(reported("ghost") == 0);
    // A writer that sets the flag itself is put right, on insert and on update.
    exec("UPDATE boot_records SET reported = 0 WHERE host = 'host-0'");
    exec("UPDATE boot_records SET reported = 1 WHERE host = 'ghost'");
    CHECK(reported("host-0") == 1);
    CHECK(reported("ghost") == 0);
    exec(
        "INSERT INTO boot_records (boot_key, host, sku_key, boot_id, kernel_release, pool_pages,"
        " page_size_kb, threads, milliseconds, line_present, recorded_at, record, reported)"
        " SELECT 'boot ghost-2 ' || replace(boot_id, '3', '9'), 'ghost-2', sku_key,"
        " replace(boot_id, '3', '9'), kernel_release, pool_pages, page_size_kb, threads,"
        " milliseconds, 1, recorded_at, replace(replace(record, '\"ghost\"', '\"ghost-2\"'),"
        " boot_id, replace(boot_id, '3', '9')), 1 FROM boot_records WHERE host = 'ghost'");
    CHECK(reported("ghost-2") == 0);
    // late-1's run moved to another SKU, its host renamed, the run moved back, the name back.
    exec(
        "INSERT INTO skus (sku_key, microarch, nodes, hardware_threads_per_node,"
        " memory_per_node_gib, page_size_kb) VALUES ('other', 'zen4', 1, 1, 1, 2048)");
    const std::string late_run =
        "host_id = (SELECT id FROM hosts WHERE hostname IN ('late-1', 'late-2'))";
    exec("UPDATE runs SET sku_id = (SELECT id FROM skus WHERE sku_key = 'other') WHERE " +
         late_run);
    CHECK(reported("late-1") == 0);
    exec("UPDATE hosts SET hostname = 'late-2' WHERE hostname = 'late-1'");
    exec("UPDATE runs SET sku_id = (SELECT id FROM skus WHERE sku_key = '" + key + "') WHERE " +
         late_run);
    CHECK(reported("late-1") == 0);  // its run is late-2's now
    exec("UPDATE hosts SET hostname = 'late-1' WHERE hostname = 'late-2'");
    CHECK(reported("late-1") == 1);
    // The SKU's key renamed: no run of the boots' SKU is left.
    exec("UPDATE skus SET sku_key = 'renamed' WHERE sku_key = '" + key + "'");
    CHECK(reported("host-0") == 0);
    exec("UPDATE skus SET sku_key = '" + key + "' WHERE sku_key = 'renamed'");
    CHECK(reported("host-0") == 1);
    sqlite3_close(sql);
    // The runs forgotten by their tool version, which names no boot: the boots stay, counted for
    // nothing.
    auto db = FleetDb::open(t.target(), true);
    RunSelection of_host;
    of_host.host = "host-0";
    const auto runs = db.list_runs(of_host);
    REQUIRE(runs.size() == 1);
    RunSelection by_tool;
    by_tool.tool_version = runs[0].tool_version;
    CHECK(db.forget_runs(by_tool, false).runs.size() == 2);
    CHECK(db.boot_tally(key, report_hosts(db, key)).host_medians.empty());
    sqlite3* again = nullptr;
    REQUIRE(sqlite3_open((t.dir / "fleet.db").c_str(), &again) == SQLITE_OK);
    CHECK(count_of(again, "SELECT COUNT(*) FROM boot_records") == 4);
    CHECK(count_of(again, "SELECT COUNT(*) FROM boot_records WHERE reported = 1") == 0);
    sqlite3_close(again);
}
