#include "tests/support/fleet_generator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "model/alloc_threads.hpp"
#include "model/documents/boot_record.hpp"
#include "model/documents/report.hpp"
#include "model/fit/resampling.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/recommend.hpp"
#include "model/text.hpp"

namespace hugetune::test {
namespace {

using nlohmann::json;

// Per SKU: a machine and the true curve of its boot work per page (USL: time per page at N
// threads per node is t1 (1 + sigma (N - 1) + kappa N (N - 1)) / N).
struct SkuTemplate {
    const char* vendor;
    int family, model, stepping;
    int nodes, threads_per_node;
    std::uint64_t gib_per_node;
    double sigma, kappa;
};
constexpr SkuTemplate kTemplates[] = {
    {"GenuineIntel", 6, 85, 4, 4, 28, 192, 0.05, 0.0015},  // skylake-sp: best past the default
    {"AuthenticAMD", 25, 17, 1, 2, 32, 384, 0.03, 0.02},   // zen4: best near the default
    {"GenuineIntel", 6, 106, 6, 2, 36, 256, 0.08, 0.006},  // icelake-sp
};
constexpr double kSecondsPerPage = 1.0e-3;    // boot work at one thread per node
constexpr double kZeroShare = 0.35;           // the fault's zeroing against the boot's work
constexpr double kSlowerCurve = 1.4;          // planted: the boot's work this much slower
constexpr double kRatioNoise = 0.04;          // log sd of a verified boot's ratio
constexpr double kOddRatio = 1.8;             // planted: this times the SKU's ratio
constexpr std::uint64_t kPagesPerNode = 512;  // 1 GiB of 2 MiB pages

double usl_per_page(const SkuTruth& s, double n) {
    return s.seconds_per_page * (1 + s.sigma * (n - 1) + s.kappa * n * (n - 1)) / n;
}

std::vector<int> thread_counts(int hw) {
    std::vector<int> counts;
    for (int n : {1, 2, 4, 8, 16, 32})
        if (n <= hw)
            counts.push_back(n);
    if (counts.back() != hw)
        counts.push_back(hw);
    return counts;
}

SkuTruth make_truth(const FleetSpec& spec, int k, model::Resampler& rng) {
    const SkuTemplate& t = kTemplates[static_cast<std::size_t>(k) % std::size(kTemplates)];
    SkuTruth s;
    // SKUs past the templates: CPUs no table names (Intel model 1000 + k), each its own SKU.
    s.cpu = {t.vendor, t.family, t.model, t.stepping, std::nullopt, std::nullopt};
    if (k >= static_cast<int>(std::size(kTemplates)))
        s.cpu.model = 1000 + k;
    s.key = {model::microarch_of(s.cpu), t.nodes, t.threads_per_node, t.gib_per_node, 2048, true};
    s.sigma = t.sigma * std::exp(0.1 * rng.normal());
    s.kappa = t.kappa * std::exp(0.1 * rng.normal());
    s.seconds_per_page = kSecondsPerPage;
    s.online_cpus = t.nodes * t.threads_per_node;
    s.pool_pages = t.gib_per_node * static_cast<std::uint64_t>(t.nodes) * 512 * 3 / 4;
    int best = 1;
    for (int n = 1; n <= t.threads_per_node; ++n)
        if (s.boot_seconds(n * t.nodes) < s.boot_seconds(best * t.nodes))
            best = n;
    s.best_hugepage_alloc_threads = best * t.nodes;
    const int hosts =
        spec.max_hosts_per_sku > spec.hosts_per_sku
            ? spec.hosts_per_sku + static_cast<int>(rng.index(static_cast<std::size_t>(
                                       spec.max_hosts_per_sku - spec.hosts_per_sku + 1)))
            : spec.hosts_per_sku;
    for (int h = 0; h < hosts; ++h)
        s.hosts.push_back(s.key.microarch + "-" + std::to_string(k) + "-host" +
                          (h < 10 ? "0" : "") + std::to_string(h));
    const char* kinds[] = {"slower_curve", "other_kernel", "odd_verification_ratio"};
    for (int o = 0; o < std::min(spec.outliers_per_sku, hosts); ++o)
        s.outliers.push_back({s.hosts[static_cast<std::size_t>(hosts - 1 - o)], kinds[o % 3]});
    return s;
}

std::string planted_on(const SkuTruth& s, const std::string& host) {
    for (const auto& o : s.outliers)
        if (o.host == host)
            return o.planted;
    return {};
}

json topology(const SkuTruth& s) {
    json nodes = json::array();
    const int hw = s.key.hardware_threads_per_node;
    for (int n = 0; n < s.key.nodes; ++n) {
        json cpus = json::array();
        for (int c = 0; c < hw; ++c)
            cpus.push_back(n * hw + c);
        nodes.push_back(
            {{"id", n}, {"cpus", cpus}, {"memory_bytes", s.key.memory_per_node_gib << 30}});
    }
    return {{"packages", s.key.nodes},
            {"cores", s.online_cpus / 2},
            {"pus", s.online_cpus},
            {"nodes", nodes}};
}

json probe(const SkuTruth& s, const std::string& host, const std::string& kernel) {
    const json pool = {{"size_kb", 2048}, {"pages", s.pool_pages}, {"node_format", false}};
    return {{"host", {{"hostname", host}}},
            {"cpu",
             {{"vendor", s.cpu.vendor},
              {"family", s.cpu.family},
              {"model", s.cpu.model},
              {"stepping", s.cpu.stepping},
              {"model_name", "generated " + s.key.microarch},
              {"microarch", s.key.microarch}}},
            {"topology", topology(s)},
            {"kernel",
             {{"release", kernel},
              {"online_cpus", s.online_cpus},
              {"hugepage_sizes_kb", {2048}},
              {"default_hugepage_size_kb", 2048},
              {"pools", json::array()},
              {"cmdline", json::array()},
              {"hugetlb_cmdline", {{"hugepages", std::to_string(s.pool_pages)}}},
              {"supports_hugepage_alloc_threads", true},
              {"default_alloc_threads", kernel_default_alloc_threads(s.online_cpus)},
              {"cmdline_alloc_threads", nullptr},
              {"init_on_alloc", true},
              {"init_on_alloc_source", "cmdline"},
              {"hvo", true},
              {"boot_pool", {pool}},
              {"last_boot_allocation", nullptr}}},
            {"virtualization", {{"hypervisor", false}, {"vendor", ""}}},
            {"firmware", {{"bios_version", "2.1.4"}, {"microcode", "0x2007006"}}}};
}

json point(const char* phase, int n, const SkuTruth& s, std::vector<double> samples) {
    const double median = model::median(samples);
    const double gib = static_cast<double>(kPagesPerNode) * 2 / 1024 * s.key.nodes;
    return {{"phase", phase},
            {"threads_per_node", n},
            {"total_threads", n * s.key.nodes},
            {"page_size_kb", 2048},
            {"pages_per_node", kPagesPerNode},
            {"samples_seconds", samples},
            {"median_seconds", median},
            {"gib_per_second", gib / median},
            {"oversubscribed", false},
            {"shortfall_pages", 0}};
}

// alloc = the boot's work + the fault's zeroing, zero = that zeroing, grow = the boot's work
// at one thread per node (cost_basis.hpp).
json sweep(const FleetSpec& spec, const SkuTruth& s, const json& probe_json, double host_level,
           double work_factor, model::Resampler& rng) {
    const auto noisy = [&](double per_page) {
        const double level = spec.count_noise > 0 ? std::exp(spec.count_noise * rng.normal()) : 1;
        std::vector<double> samples;
        for (int r = 0; r < spec.repetitions; ++r)
            samples.push_back(per_page * kPagesPerNode * host_level * level *
                              std::exp(spec.repetition_noise * rng.normal()));
        return samples;
    };
    json points = json::array();
    const auto counts = thread_counts(s.key.hardware_threads_per_node);
    const auto zero_per_page = [&](int n) {
        return kZeroShare * s.seconds_per_page * (1 + 0.01 * (n - 1)) / n;
    };
    for (int n : counts)
        points.push_back(
            point("alloc", n, s, noisy(work_factor * usl_per_page(s, n) + zero_per_page(n))));
    for (int n : counts)
        points.push_back(point("zero", n, s, noisy(zero_per_page(n))));
    points.push_back(point("grow", 1, s, noisy(work_factor * usl_per_page(s, 1))));
    json nodes = json::array();
    for (int n = 0; n < s.key.nodes; ++n)
        nodes.push_back(n);
    return {{"format", "hugetune-sweep"},
            {"format_version", 1},
            {"tool", {{"name", "hugetune"}, {"version", "0.1.0"}}},
            {"generated_at", "2026-06-01T00:00:00Z"},
            {"complete", true},
            {"probe", probe_json},
            {"parameters",
             {{"threads_per_node", counts},
              {"repetitions", spec.repetitions},
              {"phases", {"alloc", "zero", "grow"}},
              {"page_size_kb", 2048},
              {"sample_mib_per_node", kPagesPerNode * 2},
              {"nodes", nodes},
              {"seed", spec.seed},
              {"max_memory_fraction", 0.5}}},
            {"points", points}};
}

// As `hugetune verify --report` writes it (cli/cmd_verify.cpp).
json verification(const json& report, double ratio, const std::string& kernel) {
    const auto& r = report["recommendation"];
    const int threads = r["hugepage_alloc_threads"].get<int>();
    const double predicted_ms = r["predicted_seconds"].get<double>() * 1000;
    const auto measured_ms = static_cast<std::int64_t>(std::llround(predicted_ms * ratio));
    const auto pages = report["boot_pool"]["pages"];
    return {{"verified", true},
            {"measured_ms", measured_ms},
            {"threads", threads},
            {"expected_threads", threads},
            {"predicted_ms", predicted_ms},
            {"pool_predicted_ms", predicted_ms},
            {"ratio", static_cast<double>(measured_ms) / predicted_ms},
            {"ratio_refused", nullptr},
            {"pool", {{"pages", pages}, {"page_size_kb", 2048}, {"init_on_alloc", true}}},
            {"kernel_release", kernel},
            {"boot_id", "generated"},
            {"cmdline_value", std::to_string(threads)},
            {"log_line", "HugeTLB: allocation took " + std::to_string(measured_ms) +
                             "ms with hugepage_allocation_threads=" + std::to_string(threads)},
            {"problems", json::array()}};
}

json host_report(const FleetSpec& spec, const SkuTruth& s, std::size_t h, double sku_ratio,
                 int verified_clean, std::optional<model::Recommendation>& sku_fit,
                 model::Resampler& rng) {
    const std::string& host = s.hosts[h];
    const std::string planted = planted_on(s, host);
    const std::string kernel = planted == "other_kernel" ? "6.16.2" : "6.15.3";
    const json probe_json = probe(s, host, kernel);
    const double level = std::exp(spec.host_noise * rng.normal());
    const json sweep_json =
        sweep(spec, s, probe_json, level, planted == "slower_curve" ? kSlowerCurve : 1.0, rng);
    const model::SweepData data = model::parse_sweep_json(sweep_json);
    if (spec.fit_every_host || !sku_fit) {
        model::RecommendOptions options;
        options.resamples = spec.report_resamples;
        sku_fit = model::recommend_from_sweep(data, options);
    }
    model::ReportParts parts;
    parts.run.probe = model::read_probe_record(model::JsonField(probe_json));
    parts.data = &data;
    parts.run.sweep = model::read_measured_sweep(model::JsonField(sweep_json));
    parts.run.fit = *sku_fit;
    parts.boot_pool = {s.pool_pages, 2048, "cmdline"};
    parts.run.tool = {"0.1.0", "unknown"};
    parts.run.generated_at = iso8601_utc(std::chrono::system_clock::from_time_t(
        1'780'000'000 + static_cast<std::time_t>(spec.seed % 1000) * 86400 +
        static_cast<std::time_t>(h) * 60));
    json report = model::to_json(model::make_report(std::move(parts)));
    const double ratio_noise = std::exp(kRatioNoise * rng.normal());
    if (planted == "odd_verification_ratio")
        report["verification"] = verification(report, sku_ratio * kOddRatio * ratio_noise, kernel);
    else if (planted.empty() && static_cast<int>(h) < verified_clean)
        report["verification"] = verification(report, sku_ratio * ratio_noise, kernel);
    return report;
}

// The SKU's boot records: `hosts` boots, once each at half, once and twice its best value in
// turn, of the SKU's reported hosts in turn (a boot counts only for a host a report of the SKU
// names), from a stream of their own (the reports' stay as they were).
void sku_boots(const FleetSpec& spec, const SkuTruth& s, int k, const BootSink& sink) {
    model::Resampler rng(spec.seed * 7919 + static_cast<std::uint64_t>(k));
    const int best = s.best_hugepage_alloc_threads;
    const int values[] = {std::max(1, best / 2), best, std::min(best * 2, s.online_cpus)};
    for (int h = 0; h < spec.boot_hosts_per_sku; ++h) {
        model::BootRecord r;
        r.recorded_at = "2026-12-01T06:00:00Z";
        r.host = s.hosts[static_cast<std::size_t>(h) % s.hosts.size()];
        r.sku = s.key;
        char id[64];  // a boot id's form (36 characters), unique per SKU and host
        std::snprintf(id, sizeof id, "%08x-%04x-4%03x-8%03x-%012llx",
                      static_cast<unsigned>(spec.seed & 0xffffffffU), static_cast<unsigned>(k),
                      static_cast<unsigned>(h >> 12 & 0xfff), static_cast<unsigned>(h & 0xfff),
                      static_cast<unsigned long long>(h));
        r.boot_id = id;
        r.kernel_release = "6.15.3";
        r.pool = model::BootRecordPool{s.pool_pages, 2048};
        const int threads = values[h % 3];
        r.threads = static_cast<std::uint64_t>(threads);
        r.milliseconds = static_cast<std::uint64_t>(std::max(
            1.0,
            std::round(s.boot_seconds(threads) * 1000 * std::exp(spec.host_noise * rng.normal()))));
        r.init_on_alloc = true;
        r.hvo = true;
        r.allocation_line.present = true;
        r.allocation_line.text = "HugeTLB: allocation took " + std::to_string(*r.milliseconds) +
                                 "ms with hugepage_allocation_threads=" + std::to_string(threads);
        sink(model::to_json(r).dump());
    }
}

}  // namespace

double SkuTruth::boot_seconds(int total_threads) const {
    const double per_node = static_cast<double>(std::min(total_threads, online_cpus)) / key.nodes;
    return usl_per_page(*this, per_node) * static_cast<double>(pool_pages) / key.nodes;
}

GeneratedFleet generate_fleet(const FleetSpec& spec, const ReportSink& sink,
                              const BootSink& boots) {
    model::Resampler rng(spec.seed);
    GeneratedFleet fleet;
    for (int k = 0; k < spec.skus; ++k) {
        SkuTruth s = make_truth(spec, k, rng);
        const double sku_ratio = 1.1 * std::exp(0.05 * rng.normal());
        const int clean = static_cast<int>(s.hosts.size() - s.outliers.size());
        const int verified_clean = static_cast<int>(std::ceil(spec.verify_share * clean - 1e-9));
        std::optional<model::Recommendation> sku_fit;
        for (std::size_t h = 0; h < s.hosts.size(); ++h) {
            json report = host_report(spec, s, h, sku_ratio, verified_clean, sku_fit, rng);
            if (sink)
                sink(s.hosts[h], std::move(report));
            else
                fleet.reports.emplace_back(s.hosts[h], std::move(report));
        }
        if (boots)
            sku_boots(spec, s, k, boots);
        fleet.skus.push_back(std::move(s));
    }
    return fleet;
}

json GeneratedFleet::truth_json() const {
    json out = json::array();
    for (const auto& s : skus) {
        json outliers = json::array();
        for (const auto& o : s.outliers)
            outliers.push_back({{"host", o.host}, {"planted", o.planted}});
        out.push_back({{"key", model::fleet::to_string(s.key)},
                       {"hugepage_alloc_threads", s.best_hugepage_alloc_threads},
                       {"sigma", s.sigma},
                       {"kappa", s.kappa},
                       {"hosts", s.hosts},
                       {"outliers", outliers}});
    }
    return {{"skus", out}};
}

std::vector<model::fleet::FleetRun> GeneratedFleet::runs_of(const SkuTruth& sku) const {
    std::vector<model::fleet::FleetRun> runs;
    for (const auto& [host, report] : reports)
        if (std::find(sku.hosts.begin(), sku.hosts.end(), host) != sku.hosts.end())
            runs.push_back({host, host + "@" + report["generated_at"].get<std::string>(), report});
    return runs;
}

}  // namespace hugetune::test
