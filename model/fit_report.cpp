// A recommendation as a JSON value (for `--json`, reports and `run`); reports/fit_summary.cpp
// words it for people.
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

}  // namespace hugetune::model
