// The report built from fixed data: the committed 2-node Zen 4 sweep and the model's fit with
// its seed. Shared by the golden tests and the schema test.
#pragma once

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model/boot_breakdown.hpp"
#include "model/digest.hpp"
#include "model/documents/breakdown.hpp"
#include "model/documents/report.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/recommend.hpp"
#include "model/text.hpp"
#include "tests/unit/support/fixtures.hpp"

namespace hugetune::test {

inline nlohmann::json fixed_sweep(const std::string& file = "sweep-zen4-2node.json") {
    std::ifstream in(source_dir() / "tests/data" / file);
    return nlohmann::json::parse(in);
}

// The kernel facts beside the fixed sweep for its breakdown: HVO on and switchable, 28 KiB of
// vmemmap freeable per 2 MiB page (the kernel's line for 64-byte struct pages), and per-node
// zeroable_hugepages.
inline model::KernelOptions fixed_kernel_options() {
    return {true, true, 28.0, true};
}

// With `breakdown`, the breakdown, what-if and first-touch (64 GiB) blocks too, from `kernel`
// (the fixed kernel options when not given; a sweep's own probe otherwise, as `run` takes it).
// The report as `run` makes it, before it is written.
inline model::Report report_value_of_sweep(const nlohmann::json& sweep, bool breakdown,
                                           bool kernel_from_probe) {
    const model::SweepData data = model::parse_sweep_json(sweep);
    model::ReportParts parts;
    parts.run.fit = model::recommend_from_sweep(data, model::RecommendOptions{});
    if (breakdown) {
        const auto kernel = kernel_from_probe ? data.machine.kernel : fixed_kernel_options();
        parts.run.breakdown = model::boot_breakdown(parts.run.fit, data, kernel).value();
        parts.run.what_if = model::what_if_rows(parts.run.fit, *parts.run.breakdown, kernel);
        parts.run.first_touch = model::first_touch(data, 64, kernel).value();
    }
    parts.run.probe = model::read_probe_record(model::JsonField(sweep["probe"]));
    parts.data = &data;
    parts.run.sweep = model::read_measured_sweep(model::JsonField(sweep));
    parts.boot_pool = {static_cast<std::uint64_t>(parts.run.fit.pool_pages), 2048,
                       parts.run.fit.pool_source};
    parts.run.tool = {"0.1.0", "abc1234"};
    parts.run.generated_at = iso8601_utc(std::chrono::system_clock::from_time_t(1'780'000'000));
    return model::make_report(std::move(parts));
}

inline nlohmann::json report_of_sweep(const nlohmann::json& sweep, bool breakdown,
                                      bool kernel_from_probe) {
    return model::to_json(report_value_of_sweep(sweep, breakdown, kernel_from_probe));
}

// A report as its one reader reads it, whole.
inline model::Report read_whole_report(const nlohmann::json& document) {
    model::ReportReading whole;
    whole.need_run = true;
    return model::read_report(document, whole);
}

inline nlohmann::json fixed_report(bool breakdown = false,
                                   const std::string& file = "sweep-zen4-2node.json",
                                   bool kernel_from_probe = false) {
    return report_of_sweep(fixed_sweep(file), breakdown, kernel_from_probe);
}

// How much as_host moves each sample, at most, as a share of it: a few parts in 1,000, as two
// runs of one machine differ in every sample (by a percent and more: docs/fleet.md "The
// host-name rule"), and a thousand times what the fleet still takes for one machine's copy.
inline constexpr double kHostSampleShare = 0.003;

// `report` as host `host`'s: its name, and every sample moved by its own share of at most
// kHostSampleShare either way, which the name, the point and the sample choose. The fleet takes
// hosts whose samples agree within a part in a million for one machine under two names
// (docs/fleet.md "The host-name rule"); hosts made of one report stay apart so.
inline nlohmann::json as_host(nlohmann::json report, const std::string& host) {
    report["host"]["hostname"] = host;
    auto& points = report["sweep"]["points"];
    for (std::size_t p = 0; p < points.size(); ++p) {
        auto& samples = points[p]["samples_seconds"];
        for (std::size_t i = 0; i < samples.size(); ++i) {
            model::Fnv1a h;
            h.add(host);
            h.add(static_cast<std::uint64_t>(p));
            h.add(static_cast<std::uint64_t>(i));
            const double share = static_cast<double>(h.value() % 2001) / 1000.0 - 1.0;  // -1..1
            samples[i] = samples[i].get<double>() * (1 + kHostSampleShare * share);
        }
    }
    return report;
}

// `report` as measured on bare metal: its virtualization fact and its warnings list without vm.
inline nlohmann::json bare_metal(nlohmann::json report) {
    report["virtualization"]["hypervisor"] = false;
    auto& warnings = report["warnings"];
    warnings.erase(std::remove_if(warnings.begin(), warnings.end(),
                                  [](const nlohmann::json& w) { return w["code"] == "vm"; }),
                   warnings.end());
    return report;
}

// `report` whose facts give vm (measured in a virtual machine) and poor_fit (its chosen curve
// explains R^2 0.5, its points a root mean square of over 5% off it), its list saying so.
inline nlohmann::json with_vm_and_poor_fit(nlohmann::json report) {
    report["virtualization"]["hypervisor"] = true;
    auto& model = report["fit"]["model"];
    auto& chosen = model["fits"][model["name"].get<std::string>()];
    chosen["r2"] = 0.5;
    chosen["rss"] = 1.0;
    report["warnings"].push_back({{"code", "vm"}, {"message", "Measured in a virtual machine."}});
    report["warnings"].push_back({{"code", "poor_fit"}, {"message", "The curve does not fit."}});
    return report;
}

}  // namespace hugetune::test
