// A recommendation as a JSON value (for `--json`, reports and `run`) and as a short summary.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "model/recommend.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

using nlohmann::json;

template <typename T>
json optional_json(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

// A per-node count: whole for every value but a default spread unevenly over the nodes, and
// written as an integer then, as readers of earlier reports expect.
json per_node_json(double threads_per_node) {
    return threads_per_node == std::floor(threads_per_node)
               ? json(static_cast<long long>(threads_per_node))
               : json(threads_per_node);
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string significant(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

// The decision, worded the same in every summary.
std::string decision_text(const Recommendation& r) {
    const std::string value = "hugepage_alloc_threads=" + std::to_string(r.hugepage_alloc_threads) +
                              " (" + significant_text(r.threads_per_node, 4) + " per node)";
    return r.decision == Decision::set ? "set " + value : "keep the kernel default, " + value;
}

}  // namespace

nlohmann::json to_json(const ScalingFit& f) {
    return {{"name", to_string(f.model)},
            {"lambda", f.lambda},
            {"sigma", f.sigma},
            {"kappa", f.kappa},
            {"n_star", optional_json(f.n_star())},
            {"status", to_string(f.status)},
            {"message", f.message},
            {"r2", f.r2},
            {"r2_space", "log seconds"},
            {"rss", f.rss},
            {"aicc", optional_json(f.aicc)},
            {"parameters", f.parameters},
            {"residuals", f.residuals}};
}

nlohmann::json to_json(const ModelSelection& s) {
    json j;
    if (s.any_converged) {
        j = to_json(s.chosen());
    } else {
        j = {{"name", "none"},      {"status", to_string(FitStatus::not_converged)},
             {"message", s.reason}, {"sigma", nullptr},
             {"kappa", nullptr},    {"lambda", nullptr},
             {"r2", nullptr},       {"n_star", nullptr}};
    }
    j["selection"] = s.reason;
    j["fits"] = {{"usl", to_json(s.usl)}, {"amdahl", to_json(s.amdahl)}};
    return j;
}

nlohmann::json to_json(const Recommendation& r) {
    json warnings = json::array();
    for (const auto& w : r.warnings)
        warnings.push_back({{"code", w.code}, {"message", w.message}});
    json phases = json::object();
    for (const auto& p : r.phases) {
        json entry = {{"model", p.selection ? to_json(*p.selection) : json(nullptr)}};
        if (p.selection)
            entry["model"]["lambda_unit"] = r.lambda_unit;
        if (!p.message.empty())
            entry["message"] = p.message;
        phases[p.phase] = entry;
    }
    json predictions = json::array();
    for (const auto& p : r.predictions)
        predictions.push_back({{"threads_per_node", per_node_json(p.threads_per_node)},
                               {"hugepage_alloc_threads", p.total_threads},
                               {"seconds", p.seconds},
                               {"seconds_low", optional_json(p.seconds_low)},
                               {"seconds_high", optional_json(p.seconds_high)}});
    json measured = json::array();
    for (const auto& p : r.measured)
        measured.push_back({{"threads_per_node", per_node_json(p.threads_per_node)},
                            {"hugepage_alloc_threads", p.total_threads},
                            {"seconds", p.seconds}});
    json model = to_json(r.model);
    model["curve"] = r.curve;
    model["lambda_unit"] = r.lambda_unit;
    json points = json::array();
    for (const auto& p : r.series)
        points.push_back({{"threads_per_node", p.threads_per_node}, {"seconds", p.seconds}});
    model["points"] = points;
    json interval = nullptr;
    if (r.predicted_seconds_low && r.predicted_seconds_high)
        interval = {*r.predicted_seconds_low, *r.predicted_seconds_high};
    return {
        {"format", "hugetune-fit"},
        {"format_version", 1},
        {"key",
         {{"microarch", r.key.microarch},
          {"nodes", r.key.nodes},
          {"hw_threads_per_node", r.key.hw_threads_per_node},
          {"page_size_kb", r.key.page_size_kb}}},
        {"input", {{"source", r.source}}},
        {"cost_basis", to_string(r.basis)},
        {"cost_basis_text", describe(r.basis)},
        {"model", model},
        {"phases", phases},
        {"recommendation",
         {{"decision", to_string(r.decision)},
          {"threads_per_node", per_node_json(r.threads_per_node)},
          {"hugepage_alloc_threads", r.hugepage_alloc_threads},
          {"predicted_seconds", r.predicted_seconds},
          {"predicted_seconds_interval", interval},
          {"default_threads", r.default_threads},
          {"default_threads_per_node", r.default_threads_per_node},
          {"predicted_default_seconds", r.predicted_default_seconds},
          {"best_hugepage_alloc_threads", r.best_hugepage_alloc_threads},
          {"predicted_best_seconds", r.predicted_best_seconds},
          {"saving_seconds", r.saving_seconds},
          {"confidence", optional_json(r.confidence)},
          {"tolerance", r.tolerance},
          {"fallback", r.fallback},
          {"nodes", r.nodes},
          {"cpu_cap", r.cpu_cap},
          {"max_threads_per_node", r.max_threads_per_node},
          {"pool_pages", r.pool_pages},
          {"pool_source", r.pool_source},
          {"verdict", r.verdict}}},
        {"predictions", predictions},
        {"measured_boot_seconds", measured},
        {"bootstrap",
         {{"method", r.bootstrap_method.empty() ? json(nullptr) : json(r.bootstrap_method)},
          {"resamples", r.resamples},
          {"usable_resamples", r.usable_resamples},
          {"seed", r.seed}}},
        {"notes", r.notes},
        {"warnings", warnings},
    };
}

std::string format_summary(const Recommendation& r) {
    std::ostringstream s;
    s << r.verdict << "\n\n";
    s << "curve       " << r.curve << " (" << describe(r.basis) << "), "
      << printable_text(r.key.microarch) << ", " << r.nodes << " node(s), up to "
      << r.max_threads_per_node << " thread(s) per node\n";
    const auto describe = [&](const std::string& label, const ModelSelection& m) {
        if (!m.any_converged) {
            s << label << "no fit: " << m.reason << "\n";
            return;
        }
        const ScalingFit& f = m.chosen();
        s << label << to_string(f.model) << ": sigma " << significant(f.sigma) << ", kappa "
          << significant(f.kappa) << ", R^2 " << fixed(f.r2, 3);
        if (auto n = f.n_star())
            s << ", N* " << fixed(*n, 1);
        s << " (" << m.reason << ")\n";
    };
    describe("model       ", r.model);
    for (const auto& p : r.phases) {
        if (p.phase == r.curve)
            continue;
        std::string label = "phase " + p.phase;
        label.resize(std::max<std::size_t>(label.size() + 1, 12), ' ');
        if (p.selection)
            describe(label, *p.selection);
        else
            s << label << p.message << "\n";
    }
    s << "recommend   " << decision_text(r) << "\n";
    s << "predicted   " << seconds_text(r.predicted_seconds);
    if (r.predicted_seconds_low && r.predicted_seconds_high)
        s << " (90% " << seconds_text(*r.predicted_seconds_low) << ".."
          << seconds_text(*r.predicted_seconds_high) << ")";
    s << "\n";
    s << "default     " << r.default_threads << " thread(s) ("
      << significant_text(r.default_threads_per_node, 4) << " per node), predicted "
      << seconds_text(r.predicted_default_seconds) << "; saving " << seconds_text(r.saving_seconds)
      << "\n";
    if (r.best_hugepage_alloc_threads != r.hugepage_alloc_threads)
        s << "best        hugepage_alloc_threads=" << r.best_hugepage_alloc_threads
          << ", predicted " << seconds_text(r.predicted_best_seconds) << "\n";
    const bool poor_fit = std::any_of(r.warnings.begin(), r.warnings.end(),
                                      [](const Warning& w) { return w.code == "poor_fit"; });
    s << "confidence  "
      << (r.confidence ? percent_text(*r.confidence) + " of " + std::to_string(r.resamples) +
                             " resamples (" + r.bootstrap_method +
                             ") reach the same decision at a " + percent_text(r.tolerance, 1) +
                             " tolerance" + (poor_fit ? ", times the poor fit's R^2" : "")
                       : std::string("unknown"))
      << "\n";
    s << "predictions (hugepage_alloc_threads: boot allocation of the pool)";
    for (std::size_t i = 0; i < r.predictions.size(); ++i) {
        const auto& p = r.predictions[i];
        s << (i % 6 == 0 ? "\n  " : "  ") << p.total_threads << ": " << seconds_text(p.seconds);
    }
    s << "\n";
    for (const auto& w : r.warnings)
        s << "warning: " << w.message << "\n";
    return s.str();
}

}  // namespace hugetune::model
