// The boot's breakdown, the what-if rows and the first touch on sweeps built from known
// per-page costs: zeroing 0.2 ms / N per page, allocation alone 0.05 ms at every N; and boots at
// the other setting set beside the what-if prediction at their count.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "model/boot_breakdown.hpp"
#include "model/boot_comparison.hpp"
#include "model/documents/boot_comparison.hpp"
#include "model/documents/breakdown.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/recommend.hpp"

using namespace hugetune::model;

namespace breakdown_test {

constexpr double kZeroPerPage = 0.2e-3, kAllocOnlyPerPage = 0.05e-3;
constexpr double kPages = 128;  // per node, every point
constexpr double kPoolPages = 200'000;
const std::vector<double> kSpread = {0.98, 1.0, 1.02};  // the zero phase's repetitions

double zero_per_page(double n) {
    return kZeroPerPage / n;
}

// Each phase does what the kernel does (docs/kernel-facts.md "What each phase does under
// init_on_alloc"): alloc zeroes twice with init_on_alloc, once without; grow zeroes once with it.
SweepData exact_sweep(bool init_on_alloc, double zero_scale = 1) {
    SweepData d;
    d.source = "sweep";
    d.page_size_kb = 2048;
    d.machine.nodes = 2;
    d.machine.online_cpus = 32;
    d.machine.hw_threads_per_node = 16;
    d.machine.init_on_alloc = init_on_alloc;
    d.machine.boot_pool_pages = static_cast<std::uint64_t>(kPoolPages);
    std::vector<Point> alloc, zero;
    for (double n : {1.0, 2.0, 4.0, 8.0, 16.0})
        for (double f : kSpread) {
            zero.push_back({n, zero_scale * f * zero_per_page(n) * kPages});
            alloc.push_back(
                {n, ((init_on_alloc ? 2 : 1) * zero_per_page(n) + kAllocOnlyPerPage) * kPages});
        }
    const double grow = (kAllocOnlyPerPage + (init_on_alloc ? zero_per_page(1) : 0)) * kPages;
    d.phases.push_back({"alloc", kPages, alloc, {}});
    d.phases.push_back({"zero", kPages, zero, {}});
    d.phases.push_back({"grow", kPages, {{1, grow}, {1, grow}, {1, grow}}, {}});
    return d;
}

KernelOptions kernel(bool hvo_sysctl = true) {
    return {true, hvo_sysctl, 28.0, false};
}

// The pool's pages on each of the two nodes.
constexpr double kPagesPerNode = kPoolPages / 2;

}  // namespace breakdown_test

using namespace breakdown_test;

TEST_CASE("breakdown: init_on_alloc on splits the prediction into allocation and zeroing") {
    const SweepData data = exact_sweep(true);
    const Recommendation r = recommend_from_sweep(data, {});
    REQUIRE(r.basis == CostBasis::alloc_zeroed_once);
    const auto b = boot_breakdown(r, data, kernel());
    REQUIRE(b);
    CHECK(b->init_on_alloc);
    CHECK_FALSE(b->init_on_alloc_assumed);
    REQUIRE(!b->at.empty());
    const BreakdownAt& at = b->at.front();
    CHECK(at.at == "recommended");
    CHECK(at.hugepage_alloc_threads == r.hugepage_alloc_threads);
    CHECK(at.total.seconds == doctest::Approx(r.predicted_seconds));
    const double tpn = r.hugepage_alloc_threads / 2.0;
    REQUIRE(at.zeroing);
    // The zero phase's median at that count, for the pool's pages on a node.
    CHECK(at.zeroing->seconds == doctest::Approx(zero_per_page(tpn) * kPagesPerNode));
    CHECK(*at.zeroing->low == doctest::Approx(0.98 * zero_per_page(tpn) * kPagesPerNode));
    CHECK(*at.zeroing->high == doctest::Approx(1.02 * zero_per_page(tpn) * kPagesPerNode));
    CHECK(at.separable);
    CHECK(at.allocation.seconds + at.zeroing->seconds == doctest::Approx(at.total.seconds));
    // What comes back is the allocation the sweep was built from, to the fit's accuracy.
    CHECK(at.allocation.seconds == doctest::Approx(kAllocOnlyPerPage * kPagesPerNode).epsilon(0.1));
    CHECK(*at.allocation.low <= at.allocation.seconds);
    CHECK(*at.allocation.high >= at.allocation.seconds);
    if (r.default_threads != r.hugepage_alloc_threads) {
        REQUIRE(b->at.size() == 2);
        CHECK(b->at[1].at == "kernel_default");
        CHECK(b->at[1].total.seconds == doctest::Approx(r.predicted_default_seconds));
    }
    CHECK(b->hvo_note.find("not separable") == 0);
    // HVO known off: no vmemmap work in the boot, and the note says so rather than "not
    // separable".
    KernelOptions off = kernel();
    off.hvo = false;
    const auto without = boot_breakdown(r, data, off);
    REQUIRE(without);
    CHECK(without->hvo_note.find("HVO is off, so the boot does no vmemmap work") == 0);
    CHECK_FALSE(without->at.front().vmemmap);
}

TEST_CASE("what if: init_on_alloc off is the allocation alone, with the first fault said") {
    const SweepData data = exact_sweep(true);
    const Recommendation r = recommend_from_sweep(data, {});
    const auto b = boot_breakdown(r, data, kernel()).value();
    const auto rows = what_if_rows(r, b, kernel());
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].parameter == "init_on_alloc");
    CHECK(rows[0].value == "0");
    REQUIRE(rows[0].predicted);
    CHECK(rows[0].predicted->seconds == doctest::Approx(b.at.front().allocation.seconds));
    CHECK(rows[0].trade_off.find("hardening") != std::string::npos);
    CHECK(rows[0].note.find("zeroes every pool page again at its first fault") !=
          std::string::npos);
    KernelOptions zeroable = kernel();
    zeroable.zeroable_hugepages = true;
    CHECK(what_if_rows(r, b, zeroable)[0].note.find("zeroable_hugepages") != std::string::npos);
}

TEST_CASE("what if: init_on_alloc on adds the zero phase's time for the pool") {
    const SweepData data = exact_sweep(false);
    const Recommendation r = recommend_from_sweep(data, {});
    REQUIRE((r.basis == CostBasis::alloc_only || r.basis == CostBasis::alloc_only_flat));
    const auto b = boot_breakdown(r, data, kernel()).value();
    CHECK_FALSE(b.init_on_alloc);
    CHECK_FALSE(b.at.front().zeroing);
    CHECK(b.at.front().allocation.seconds == doctest::Approx(b.at.front().total.seconds));
    const auto rows = what_if_rows(r, b, kernel());
    CHECK(rows[0].value == "1");
    const double tpn = r.hugepage_alloc_threads / 2.0;
    REQUIRE(rows[0].predicted);
    CHECK(rows[0].predicted->seconds ==
          doctest::Approx(r.predicted_seconds + zero_per_page(tpn) * kPagesPerNode));
}

TEST_CASE("what if: HVO the other way is not predicted, and says why and what it frees") {
    const SweepData data = exact_sweep(true);
    const Recommendation r = recommend_from_sweep(data, {});
    const auto b = boot_breakdown(r, data, kernel()).value();
    const auto with_sysctl = what_if_rows(r, b, kernel(true))[1];
    CHECK(with_sysctl.parameter == "hugetlb_free_vmemmap");
    CHECK(with_sysctl.value == "off");
    CHECK_FALSE(with_sysctl.predicted);
    REQUIRE(with_sysctl.memory_saved_bytes);
    CHECK(*with_sysctl.memory_saved_bytes == doctest::Approx(28.0 * 1024 * kPoolPages));
    CHECK(with_sysctl.note.find("hugetlb_optimize_vmemmap exists") != std::string::npos);
    const auto without = what_if_rows(r, b, kernel(false))[1];
    CHECK(without.note.find("has no /proc/sys/vm/hugetlb_optimize_vmemmap") != std::string::npos);
}

TEST_CASE("breakdown: a zero phase slower than the boot does not split it") {
    // Zeroing three times as slow as the alloc phase says: the phases contradict each other.
    const SweepData data = exact_sweep(true, 3);
    const Recommendation r = recommend_from_sweep(data, {});
    REQUIRE(r.basis == CostBasis::alloc_zeroed_once);
    const auto b = boot_breakdown(r, data, kernel()).value();
    CHECK_FALSE(b.at.front().separable);
    const auto rows = what_if_rows(r, b, kernel());
    CHECK_FALSE(rows[0].predicted);
    CHECK(rows[0].note.find("not predicted") == 0);
}

TEST_CASE("breakdown: none for a boot table or a sweep without a zero phase") {
    SweepData table;
    table.source = "csv";
    table.phases.push_back({"boot", 0, {{1, 10}, {2, 6}, {4, 4}, {8, 3.5}}, {}});
    const Recommendation from_table = recommend_from_sweep(table, {});
    CHECK_FALSE(boot_breakdown(from_table, table, kernel()));
    SweepData no_zero = exact_sweep(true);
    no_zero.phases.erase(no_zero.phases.begin() + 1);
    CHECK_FALSE(boot_breakdown(recommend_from_sweep(no_zero, {}), no_zero, kernel()));
    CHECK_FALSE(first_touch(no_zero, 64, kernel()));
}

TEST_CASE("first touch: the zero phase per thread count, for G GiB over the nodes") {
    const SweepData data = exact_sweep(true);
    const auto t = first_touch(data, 1, kernel());
    REQUIRE(t);
    CHECK(t->gib == 1);
    REQUIRE(t->rows.size() == 5);
    // 1 GiB of 2 MiB pages is 512 pages, 256 on each of the two nodes.
    for (const auto& row : t->rows) {
        CHECK(row.threads == 2 * row.threads_per_node);
        CHECK(row.time.seconds == doctest::Approx(zero_per_page(row.threads_per_node) * 256));
        CHECK(*row.time.low == doctest::Approx(0.98 * zero_per_page(row.threads_per_node) * 256));
        CHECK(*row.time.high == doctest::Approx(1.02 * zero_per_page(row.threads_per_node) * 256));
    }
    CHECK_FALSE(t->zeroable_hugepages);
}

TEST_CASE("breakdown blocks: what the writer writes, the reader reads back") {
    const SweepData data = exact_sweep(true);
    const Recommendation r = recommend_from_sweep(data, {});
    const auto b = boot_breakdown(r, data, kernel()).value();
    const auto rows = what_if_rows(r, b, kernel());
    const auto t = first_touch(data, 64, kernel()).value();
    const nlohmann::json doc = {
        {"breakdown", to_json(b)}, {"what_if", to_json(rows)}, {"first_touch", to_json(t)}};
    const JsonField f(doc);
    const auto b2 = read_breakdown(f["breakdown"]).value();
    CHECK(b2.at.size() == b.at.size());
    CHECK(b2.at.front().allocation.seconds == doctest::Approx(b.at.front().allocation.seconds));
    CHECK(b2.at.front().zeroing->high == b.at.front().zeroing->high);
    CHECK(b2.hvo_note == b.hvo_note);
    const auto rows2 = read_what_if(f["what_if"]);
    REQUIRE(rows2.size() == 2);
    CHECK(rows2[1].memory_saved_bytes == rows[1].memory_saved_bytes);
    CHECK_FALSE(rows2[1].predicted);
    CHECK(read_first_touch(f["first_touch"])->rows.size() == t.rows.size());
    CHECK_FALSE(read_breakdown(f["absent"]));
    nlohmann::json applied = doc;
    applied["what_if"][0]["applied"] = true;
    CHECK_THROWS_WITH_AS(read_what_if(JsonField(applied)["what_if"]),
                         doctest::Contains("never applies"), InputError);
}

namespace breakdown_test {

// The grow phase at 1 thread per node, three repetitions around `per_page` seconds a page.
PhaseSeries grow_series(double per_page, const std::vector<double>& spread = kSpread) {
    std::vector<Point> points;
    for (double f : spread)
        points.push_back({1, f * per_page * kPages});
    return {"grow", kPages, points, {}};
}

// An alloc series of the HVO pass at 1 and 16 threads per node, `factor` times the sweep's:
// what the alloc phase's noise may make of the pass when the fault's zeroing is all its time.
PhaseSeries noisy_alloc(const SweepData& data, double factor) {
    std::vector<Point> points;
    for (const Point& p : data.phase(kPhaseAlloc)->points)
        if (p.threads_per_node == 1 || p.threads_per_node == 16)
            points.push_back({p.threads_per_node, factor * p.seconds});
    return {"alloc", kPages, points, {}};
}

double grow_per_page(bool init_on_alloc) {
    return kAllocOnlyPerPage + (init_on_alloc ? zero_per_page(1) : 0);
}

}  // namespace breakdown_test

TEST_CASE("what if: HVO measured by the sweep's HVO pass is predicted from grow, its part shown") {
    // HVO on as it ran; the pass timed grow with it off, 0.01 ms a page faster, and alloc with
    // a noise that makes it half as fast: the row is of grow, not of alloc.
    constexpr double kHvoPerPage = 0.01e-3;
    SweepData data = exact_sweep(true);
    data.phases.back() = grow_series(grow_per_page(true));
    data.hvo_pass = HvoPassData{
        true, false, {noisy_alloc(data, 2.0), grow_series(grow_per_page(true) - kHvoPerPage)}};
    const Recommendation r = recommend_from_sweep(data, {});
    const auto b = boot_breakdown(r, data, kernel()).value();
    CHECK(b.hvo_measured);
    CHECK(b.hvo == true);
    const BreakdownAt& at = b.at.front();
    // HVO's share of grow's work, of the prediction.
    const double share = kHvoPerPage / grow_per_page(true);
    REQUIRE(at.vmemmap);
    CHECK(at.vmemmap->seconds == doctest::Approx(share * at.total.seconds));
    REQUIRE(at.hvo_other_way);
    CHECK(at.hvo_other_way->seconds == doctest::Approx((1 - share) * at.total.seconds));
    REQUIRE(at.hvo_other_way->low);
    REQUIRE(at.hvo_other_way->high);
    CHECK(*at.hvo_other_way->low <= at.hvo_other_way->seconds);
    CHECK(*at.hvo_other_way->high >= at.hvo_other_way->seconds);
    const auto row = what_if_rows(r, b, kernel())[1];
    CHECK(row.value == "off");
    REQUIRE(row.predicted);
    CHECK(row.predicted->seconds == doctest::Approx(at.hvo_other_way->seconds));
    CHECK(row.note.find("grow phase") != std::string::npos);
    CHECK(row.note.find("HVO pass") != std::string::npos);
    CHECK(b.hvo_note.find("measured by the sweep's HVO pass") == 0);

    const nlohmann::json doc = {{"breakdown", to_json(b)}};
    const auto b2 = read_breakdown(JsonField(doc)["breakdown"]).value();
    CHECK(b2.hvo_measured);
    REQUIRE(b2.at.front().vmemmap);
    CHECK(b2.at.front().vmemmap->seconds == doctest::Approx(at.vmemmap->seconds));

    // Without a pass (the kernel has no sysctl) nothing is measured and the note says why.
    const SweepData plain = exact_sweep(true);
    const auto b3 = boot_breakdown(recommend_from_sweep(plain, {}), plain, kernel(false)).value();
    CHECK_FALSE(b3.hvo_measured);
    CHECK_FALSE(b3.at.front().vmemmap);
}

TEST_CASE("what if: HVO on with init_on_alloc off is predicted from grow at every count") {
    // HVO off as it ran; turning it on makes grow 30% slower, while the pass's alloc phase,
    // the fault's zeroing with its noise, came out 40% faster.
    SweepData data = exact_sweep(false);
    data.phases.back() = grow_series(grow_per_page(false));
    data.hvo_pass =
        HvoPassData{false, true, {noisy_alloc(data, 0.6), grow_series(1.3 * grow_per_page(false))}};
    KernelOptions k = kernel();
    k.hvo = false;
    const Recommendation r = recommend_from_sweep(data, {});
    const auto b = boot_breakdown(r, data, k).value();
    CHECK(b.hvo_measured);
    CHECK_FALSE(b.at.front().vmemmap);  // HVO off: the boot holds no vmemmap work
    const auto row = what_if_rows(r, b, k)[1];
    CHECK(row.value == "on");
    REQUIRE(row.predicted);
    CHECK(row.predicted->seconds == doctest::Approx(1.3 * b.at.front().total.seconds));
    REQUIRE(row.memory_saved_bytes);
    for (int threads : {2, 8, 32}) {
        const auto at = what_if_rows_at(r, data, k, threads, kPoolPages);
        REQUIRE(at.size() == 2);
        REQUIRE(at[1].predicted);
        CHECK(at[1].predicted->seconds ==
              doctest::Approx(1.3 * predict_boot_seconds(r, threads, kPoolPages)));
    }
}

TEST_CASE("what if: HVO within the repetitions' spread is not predicted, and says so") {
    // The pass's grow repetitions lie among the sweep's: no difference stands out, however the
    // medians fall; the alloc pass's difference is large and must not be taken instead.
    SweepData data = exact_sweep(false);
    data.phases.back() = grow_series(grow_per_page(false), {1.0, 1.2, 0.9});
    data.hvo_pass =
        HvoPassData{false,
                    true,
                    {noisy_alloc(data, 3.0), grow_series(grow_per_page(false), {1.1, 0.95, 1.15})}};
    KernelOptions k = kernel();
    k.hvo = false;
    const Recommendation r = recommend_from_sweep(data, {});
    const auto b = boot_breakdown(r, data, k).value();
    CHECK_FALSE(b.hvo_measured);
    CHECK_FALSE(b.at.front().hvo_other_way);
    CHECK(b.hvo_note.find("within the repetitions' spread") != std::string::npos);
    const auto row = what_if_rows(r, b, k)[1];
    CHECK(row.value == "on");
    CHECK_FALSE(row.predicted);
    CHECK(row.note.find("not predicted: HVO's difference is within the repetitions' spread") == 0);
    REQUIRE(row.memory_saved_bytes);  // what HVO frees is known from the boot log all the same
    CHECK(*row.memory_saved_bytes == doctest::Approx(28.0 * 1024 * kPoolPages));

    SUBCASE("a pass without grow (alloc only) is not predicted either") {
        data.hvo_pass->phases.pop_back();
        const auto b2 = boot_breakdown(r, data, k).value();
        const auto row2 = what_if_rows(r, b2, k)[1];
        CHECK_FALSE(row2.predicted);
        CHECK(row2.note.find("no grow phase") != std::string::npos);
    }
}

namespace breakdown_test {

// A sweep the boot lab's what-if run kept (tests/vm/findings/whatif-DATE/), with its HVO pass.
SweepData lab_sweep(const std::string& date) {
    std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/tests/vm/findings/whatif-" + date +
                     "/sweep-init_on_alloc0.json");
    REQUIRE(in);
    SweepData data = parse_sweep_json(nlohmann::json::parse(in));
    REQUIRE(data.hvo_pass);
    return data;
}

}  // namespace breakdown_test

TEST_CASE("what if: the boot lab's init_on_alloc=0 sweep no longer predicts HVO from alloc noise") {
    // tests/vm/README.md, "Defects the lab found in hugetune": this sweep's HVO row predicted 0 ms
    // at T = 1 and 6.6 s at T = 2 for 2048-page boots of 104 and 82 ms (128 and 140 ms with HVO
    // on). Its grow phase, 3 repetitions each way, does not separate HVO from the spread.
    const SweepData data = lab_sweep("2026-12-02");
    const KernelOptions& k = data.machine.kernel;
    const Recommendation r = recommend_from_sweep(data, {});
    const auto b = boot_breakdown(r, data, k);
    REQUIRE(b);
    const auto row = what_if_rows(r, *b, k)[1];
    CHECK(row.value == "on");
    CHECK_FALSE(row.predicted);
    CHECK(row.note.find("within the repetitions' spread") != std::string::npos);
    for (int threads : {1, 2}) {
        const auto at = what_if_rows_at(r, data, k, threads, 2048);
        REQUIRE(at.size() == 2);
        CHECK(at[1].parameter == "hugetlb_free_vmemmap");
        CHECK_FALSE(at[1].predicted);
    }
}

TEST_CASE("what if: the boot lab's sweep with 9 repetitions predicts HVO's boots from grow") {
    // tests/vm/README.md "The HVO row against boots": the HVO pass timing grow alone, 9
    // repetitions, in an emulated guest with init_on_alloc=0 and HVO off. Booted with
    // hugetlb_free_vmemmap=on and 2048 pages, the kernel's own lines gave medians of 156 ms at
    // T = 1 and 136 ms at T = 2 (three boots each; findings/whatif-2026-12-03/whatif-boots.tsv).
    // One stored run, the one the grow-based row was made with: this replays it, so it catches
    // a change of the code that moves these figures, and says nothing of another run (a run with
    // the lab's defaults, 3 repetitions, did not predict the row at all: tests/vm/README.md).
    const SweepData data = lab_sweep("2026-12-03");
    REQUIRE(data.hvo_pass->phases.size() == 1);  // grow alone: the pass times nothing else
    CHECK(data.hvo_pass->phase(kPhaseGrow) != nullptr);
    const KernelOptions& k = data.machine.kernel;
    const Recommendation r = recommend_from_sweep(data, {});
    const std::vector<std::pair<int, double>> booted_ms{{1, 156}, {2, 136}};
    for (const auto& [threads, measured_ms] : booted_ms) {
        const auto at = what_if_rows_at(r, data, k, threads, 2048);
        REQUIRE(at.size() == 2);
        CHECK(at[1].parameter == "hugetlb_free_vmemmap");
        REQUIRE(at[1].predicted);
        const double ratio = at[1].predicted->seconds * 1000 / measured_ms;
        INFO("T = " << threads << ": predicted/measured " << ratio);
        CHECK(ratio >= 0.85);
        CHECK(ratio <= 1.15);
        REQUIRE(at[1].predicted->low);
        REQUIRE(at[1].predicted->high);
        CHECK(*at[1].predicted->low * 1000 <= measured_ms);
        CHECK(*at[1].predicted->high * 1000 >= measured_ms);
    }
}

namespace breakdown_test {

// A boot sweep's result of the pool at 2 and 4 threads, three boots each, at init_on_alloc
// `first` then `second` (nothing: the steps do not say), HVO `hvo` on every step.
nlohmann::json boot_sweep_result(std::optional<bool> first, std::optional<bool> second,
                                 std::optional<bool> hvo = std::nullopt) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& ioa : {first, second})
        for (int threads : {2, 4})
            for (int ms : {900, 1000, 1100})
                steps.push_back({{"threads", threads},
                                 {"repetition", 1},
                                 {"init_on_alloc", ioa ? nlohmann::json(*ioa) : nullptr},
                                 {"hugetlb_free_vmemmap", hvo ? nlohmann::json(*hvo) : nullptr},
                                 {"milliseconds", ms * (ioa.value_or(true) ? 10 : 1) / threads}});
    return {{"format", kBootSweepFormat},
            {"format_version", kBootSweepFormatVersion},
            {"complete", true},
            {"nodes", 2},
            {"page_size_kb", 2048},
            {"kernel", {{"release", "7.2.0"}, {"online_cpus", 32}}},
            {"pages", static_cast<std::uint64_t>(kPoolPages)},
            {"init_on_alloc", nullptr},
            {"steps", steps}};
}

}  // namespace breakdown_test

TEST_CASE("what if at a count: the row at the recommended count and pool is the report's") {
    const SweepData data = exact_sweep(true);
    const Recommendation r = recommend_from_sweep(data, {});
    const auto b = boot_breakdown(r, data, kernel());
    REQUIRE(b);
    const auto rows = what_if_rows(r, *b, kernel());
    const auto at = what_if_rows_at(r, data, kernel(), r.hugepage_alloc_threads, r.pool_pages);
    REQUIRE(rows.size() == at.size());
    REQUIRE(rows[0].predicted);
    REQUIRE(at[0].predicted);
    CHECK(at[0].value == "0");
    CHECK(at[0].predicted->seconds == doctest::Approx(rows[0].predicted->seconds));
    CHECK(at[0].predicted->low.value_or(-1) ==
          doctest::Approx(rows[0].predicted->low.value_or(-1)));
    // Another count and twice the pool: the prediction there less the zero phase there.
    const auto other = what_if_rows_at(r, data, kernel(), 8, 2 * kPoolPages);
    REQUIRE(other.size() == 2);
    REQUIRE(other[0].predicted);
    CHECK(other[0].hugepage_alloc_threads == 8);
    CHECK(other[0].predicted->seconds ==
          doctest::Approx(predict_boot_seconds(r, 8, 2 * kPoolPages) -
                          zero_per_page(4) * 2 * kPagesPerNode));
}

TEST_CASE("boots at the other init_on_alloc are set beside the what-if prediction") {
    const SweepData data = exact_sweep(true);
    const Recommendation r = recommend_from_sweep(data, {});
    const SweepData boots = parse_boot_sweep_json(boot_sweep_result(true, false));
    REQUIRE(boots.boot_settings.size() == 2);
    CHECK(boots.phases.front().points.size() == 6);  // a fit takes the first setting's boots
    const BootComparison c = compare_with_boots(r, boots, {&data, kernel()});
    CHECK(c.init_on_alloc == true);
    REQUIRE(c.rows.size() == 2);
    CHECK(c.rows[0].threads == 2);
    CHECK(c.rows[0].measured_ms == doctest::Approx(5000));
    REQUIRE(c.what_if.size() == 2);
    for (const BootWhatIfRow& w : c.what_if) {
        CHECK(w.parameter == "init_on_alloc");
        CHECK(w.value == "0");
        CHECK(w.boots == 3);
        CHECK(w.recommended == (w.threads == r.hugepage_alloc_threads));
        const auto expected = what_if_rows_at(r, data, kernel(), w.threads, kPoolPages);
        REQUIRE(w.predicted);
        CHECK(w.predicted->ms == doctest::Approx(expected[0].predicted->seconds * 1000));
        REQUIRE(w.ratio);
        CHECK(*w.ratio == doctest::Approx(w.measured_ms / w.predicted->ms));
    }
    CHECK(c.what_if[0].measured_ms == doctest::Approx(500));
    CHECK(c.unmatched.empty());
    const auto doc = to_json(c);
    CHECK(doc["what_if"][0]["parameter"] == "init_on_alloc");
    CHECK(doc["what_if"][0]["measured_ms"] == doctest::Approx(500));
    CHECK(doc["what_if"][0]["predicted_ms"].is_number());
    // Read back from the report's block, the comparison is written the same.
    CHECK(to_json(read_boot_comparison(JsonField(doc))).dump() == doc.dump());

    SUBCASE("without the sweep no what-if is predicted, and the other setting is named") {
        const BootComparison plain = compare_with_boots(r, boots);
        CHECK(plain.rows.size() == 2);
        CHECK(plain.what_if.empty());
        REQUIRE(plain.unmatched.size() == 1);
        CHECK(plain.unmatched[0].find("init_on_alloc 0") != std::string::npos);
    }
    SUBCASE("boots that change HVO too are not predicted by either row") {
        KernelOptions off = kernel();
        off.hvo = false;
        const SweepData both = parse_boot_sweep_json(boot_sweep_result(false, std::nullopt, true));
        const BootComparison b = compare_with_boots(r, both, {&data, off});
        // The first setting: init_on_alloc 0 and HVO on, both the other way.
        REQUIRE(!b.what_if.empty());
        CHECK(b.what_if[0].parameter.empty());
        CHECK_FALSE(b.what_if[0].predicted);
        CHECK(b.what_if[0].note.find("both differ") != std::string::npos);
    }
}

TEST_CASE("a boot sweep result written before the steps named their settings reads as one") {
    auto doc = boot_sweep_result(std::nullopt, std::nullopt);
    doc["init_on_alloc"] = true;
    for (auto& step : doc["steps"]) {
        step.erase("init_on_alloc");
        step.erase("hugetlb_free_vmemmap");
    }
    const SweepData boots = parse_boot_sweep_json(doc);
    REQUIRE(boots.boot_settings.size() == 1);
    CHECK(boots.boot_settings[0].init_on_alloc == true);
    CHECK(boots.machine.init_on_alloc == true);
    CHECK(boots.phases.front().points.size() == 12);
    CHECK(boots.notes.empty());
}
