// PROVISIONAL: a minimal implementation of model/fleet/fleet.hpp so that the fleet database and
// its commands build and run before the real analysis lands; replaced at merge by the analysis
// of branch `fleetmodel`. It pools every host's samples into one sweep and fits that (no host
// level in the bootstrap), and flags a host only for a kernel release unlike its siblings'.
#include <algorithm>
#include <map>
#include <set>

#include "model/fleet/fleet.hpp"

namespace hugetune::model::fleet {
namespace {

[[noreturn]] void refuse(const std::string& message) {
    throw InputError(std::nullopt, message);
}

std::string key_part(std::string_view text, char unit, std::string_view what) {
    if (text.size() < 2 || text.back() != unit)
        refuse("SKU key: '" + std::string(text) + "' is not " + std::string(what));
    return std::string(text.substr(0, text.size() - 1));
}

std::uint64_t key_number(std::string_view text, char unit, std::string_view what) {
    const std::string digits = key_part(text, unit, what);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        digits.size() > 9)
        refuse("SKU key: '" + std::string(text) + "' is not " + std::string(what));
    return std::stoull(digits);
}

// The report's probe and sweep, as the sweep file carries them, for parse_sweep_json.
nlohmann::json sweep_document(const nlohmann::json& report) {
    return {{"format", "hugetune-sweep"},
            {"format_version", 1},
            {"complete", report.at("sweep").value("complete", true)},
            {"probe",
             {{"host", report.at("host")},
              {"cpu", report.at("cpu")},
              {"topology", report.at("topology")},
              {"kernel", report.at("kernel")},
              {"virtualization", report.at("virtualization")}}},
            {"parameters", report.at("sweep").at("parameters")},
            {"points", report.at("sweep").at("points")}};
}

std::optional<double> median(std::vector<double> values) {
    if (values.empty())
        return std::nullopt;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

std::string to_string(const SkuKey& key) {
    return key.microarch + "/" + std::to_string(key.nodes) + "n/" +
           std::to_string(key.hardware_threads_per_node) + "t/" +
           std::to_string(key.memory_per_node_gib) + "g/" + std::to_string(key.page_size_kb) + "k";
}

SkuKey parse_sku_key(std::string_view text) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const std::size_t slash = text.find('/', start);
        parts.push_back(text.substr(start, slash - start));
        if (slash == std::string_view::npos)
            break;
        start = slash + 1;
    }
    if (parts.size() != 5 || parts[0].empty())
        refuse("SKU key '" + std::string(text) +
               "' is not MICROARCH/<nodes>n/<threads>t/<GiB>g/<page kB>k");
    SkuKey key;
    key.microarch = std::string(parts[0]);
    key.nodes = static_cast<int>(key_number(parts[1], 'n', "a node count such as 2n"));
    key.hardware_threads_per_node =
        static_cast<int>(key_number(parts[2], 't', "a thread count such as 32t"));
    key.memory_per_node_gib = key_number(parts[3], 'g', "memory in GiB such as 64g");
    key.page_size_kb = key_number(parts[4], 'k', "a page size in kB such as 2048k");
    return key;
}

std::string to_string(SkuStatus status) {
    switch (status) {
        case SkuStatus::settled:
            return "settled";
        case SkuStatus::needs_more_hosts:
            return "needs_more_hosts";
        case SkuStatus::disagrees_with_verification:
            return "disagrees_with_verification";
    }
    return "needs_more_hosts";
}

RunFacts read_run(const nlohmann::json& report) {
    if (!report.is_object() || report.value("schema_version", 0) != 1)
        refuse("/schema_version: not 1; write the report with this hugetune");
    RunFacts run;
    try {
        run.host = report.at("host").at("hostname").get<std::string>();
        const auto& sku = report.at("sku");
        run.sku = {sku.at("microarch").get<std::string>(), sku.at("nodes").get<int>(),
                   sku.at("hardware_threads_per_node").get<int>(),
                   sku.at("memory_per_node_gib").get<std::uint64_t>(),
                   sku.at("page_size_kb").get<std::uint64_t>()};
        run.generated_at = report.at("generated_at").get<std::string>();
        run.tool_version = report.at("tool").at("version").get<std::string>();
        run.kernel_release = report.at("kernel").value("release", std::string());
        const auto& rec = report.at("recommendation");
        run.decision = rec.value("decision", std::string("set"));
        run.hugepage_alloc_threads = rec.at("hugepage_alloc_threads").get<int>();
        run.predicted_seconds = rec.at("predicted_seconds").get<double>();
        run.saving_seconds = rec.value("saving_seconds", 0.0);
        if (rec.contains("confidence") && rec["confidence"].is_number())
            run.confidence = rec["confidence"].get<double>();
        for (const auto& w : report.at("warnings"))
            run.warning_codes.push_back(w.at("code").get<std::string>());
    } catch (const nlohmann::json::exception& e) {
        refuse(std::string("report: ") + e.what());
    }
    run.sweep = parse_sweep_json(sweep_document(report));
    if (const auto it = report.find("verification"); it != report.end() && it->is_object()) {
        VerificationFacts v;
        v.verified = it->value("verified", false);
        auto number = [&](const char* key) -> std::optional<double> {
            const auto f = it->find(key);
            return f != it->end() && f->is_number() ? std::optional(f->get<double>())
                                                    : std::nullopt;
        };
        v.measured_ms = number("measured_ms");
        if (auto t = number("threads"))
            v.threads = static_cast<int>(*t);
        v.predicted_ms = number("pool_predicted_ms");
        v.ratio = number("ratio");
        v.kernel_release = it->value("kernel_release", std::string());
        if (it->contains("boot_id") && (*it)["boot_id"].is_string())
            v.boot_id = (*it)["boot_id"].get<std::string>();
        run.verification = v;
    }
    return run;
}

SkuAnswer answer_sku(const std::vector<FleetRun>& runs, const FleetOptions& options) {
    if (runs.empty())
        refuse("no runs for the SKU");
    SkuAnswer answer;
    std::set<std::string> hosts;
    std::vector<double> ratios;
    SweepData pooled;
    for (const auto& stored : runs) {
        RunFacts run = read_run(stored.report);
        if (hosts.empty() && answer.runs == 0)
            answer.sku = run.sku;
        else if (!(run.sku == answer.sku))
            refuse("runs of two SKUs: " + to_string(answer.sku) + " and " + to_string(run.sku));
        hosts.insert(run.host);
        ++answer.runs;
        if (run.verification && run.verification->verified && run.verification->ratio) {
            ++answer.verified_boots;
            ratios.push_back(*run.verification->ratio);
        }
        if (pooled.phases.empty()) {
            pooled = std::move(run.sweep);
            continue;
        }
        for (const auto& series : run.sweep.phases)
            for (auto& target : pooled.phases)
                if (target.phase == series.phase)
                    target.points.insert(target.points.end(), series.points.begin(),
                                         series.points.end());
    }
    answer.hosts = static_cast<int>(hosts.size());
    answer.recommendation = recommend_from_sweep(pooled, options.recommend);
    if (answer.recommendation.decision == Decision::set)
        answer.kernel_cmdline = "hugepage_alloc_threads=" +
                                std::to_string(answer.recommendation.hugepage_alloc_threads);
    answer.verification_ratio = median(ratios);
    if (answer.hosts < options.min_hosts) {
        answer.status = SkuStatus::needs_more_hosts;
        answer.status_reason = "fewer than " + std::to_string(options.min_hosts) + " hosts";
    } else if (answer.verification_ratio &&
               (*answer.verification_ratio > 1.5 || *answer.verification_ratio < 1 / 1.5)) {
        answer.status = SkuStatus::disagrees_with_verification;
        answer.status_reason = "verified boots differ from the prediction by more than 1.5 times";
    } else {
        answer.status = SkuStatus::settled;
        answer.status_reason = "enough hosts, and no verified boot disagrees";
    }
    return answer;
}

std::vector<HostCheck> check_hosts(const std::vector<FleetRun>& runs, const FleetOptions&) {
    std::map<std::string, HostCheck> by_host;
    std::map<std::string, int> kernels;
    for (const auto& stored : runs) {
        const RunFacts run = read_run(stored.report);
        HostCheck& check = by_host[run.host];
        check.host = run.host;
        ++check.runs;
        check.kernel_release = run.kernel_release;
        if (run.verification && run.verification->ratio)
            check.verification_ratio = run.verification->ratio;
    }
    for (const auto& [host, check] : by_host)
        ++kernels[check.kernel_release.value_or("")];
    const auto common = std::max_element(kernels.begin(), kernels.end(), [](auto& a, auto& b) {
                            return a.second < b.second;
                        })->first;
    std::vector<HostCheck> out;
    for (auto& [host, check] : by_host) {
        if (kernels.size() > 1 && check.kernel_release.value_or("") != common) {
            check.outlier = true;
            check.reasons.push_back("kernel " + check.kernel_release.value_or("unknown") +
                                    " differs from its siblings' " + common);
        }
        out.push_back(check);
    }
    return out;
}

nlohmann::json to_json(const SkuAnswer& answer) {
    const Recommendation& r = answer.recommendation;
    nlohmann::json j = {{"sku", to_string(answer.sku)},
                        {"hosts", answer.hosts},
                        {"runs", answer.runs},
                        {"decision", to_string(r.decision)},
                        {"hugepage_alloc_threads", r.hugepage_alloc_threads},
                        {"kernel_cmdline", answer.kernel_cmdline},
                        {"predicted_seconds", r.predicted_seconds},
                        {"predicted_seconds_low", nullptr},
                        {"predicted_seconds_high", nullptr},
                        {"saving_seconds", r.saving_seconds},
                        {"confidence", nullptr},
                        {"verified_boots", answer.verified_boots},
                        {"verification_ratio", nullptr},
                        {"status", to_string(answer.status)},
                        {"status_reason", answer.status_reason}};
    if (r.predicted_seconds_low)
        j["predicted_seconds_low"] = *r.predicted_seconds_low;
    if (r.predicted_seconds_high)
        j["predicted_seconds_high"] = *r.predicted_seconds_high;
    if (r.confidence)
        j["confidence"] = *r.confidence;
    if (answer.verification_ratio)
        j["verification_ratio"] = *answer.verification_ratio;
    return j;
}

nlohmann::json to_json(const HostCheck& check) {
    auto optional = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    return {{"host", check.host},
            {"runs", check.runs},
            {"outlier", check.outlier},
            {"reasons", check.reasons},
            {"curve_deviation", optional(check.curve_deviation)},
            {"verification_ratio", optional(check.verification_ratio)},
            {"kernel_release", optional(check.kernel_release)},
            {"firmware", optional(check.firmware)}};
}

}  // namespace hugetune::model::fleet
