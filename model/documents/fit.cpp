// The fit document: a Recommendation as JSON and back (model/documents/fit.hpp).
#include "model/documents/fit.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "model/documents/json_values.hpp"
#include "model/input/json_fields.hpp"

namespace hugetune::model {
namespace {

using nlohmann::json;

// A per-node count: whole for every value but a default spread unevenly over the nodes, and
// written as an integer then, as readers of earlier reports expect.
json per_node_json(double threads_per_node) {
    return threads_per_node == std::floor(threads_per_node)
               ? json(static_cast<long long>(threads_per_node))
               : json(threads_per_node);
}

// How the confidence moves over resampled sweeps (ConfidenceSpread); null where none was made.
json spread_json(const std::optional<ConfidenceSpread>& spread) {
    if (!spread)
        return nullptr;
    return {{"low", or_null(spread->low)},
            {"high", or_null(spread->high)},
            {"resampled_sweeps", spread->sweeps},
            {"by_rule", spread->by_rule},
            {"same_decision", spread->same_decision}};
}

}  // namespace

nlohmann::json to_json(const ScalingFit& f) {
    // A fit of a fleet's pooled series has a residual per point of every host: past
    // kMaxKeptResiduals (a SKU of about 3,000 hosts) they are left out, rss and r2 standing for
    // them.
    const std::vector<double> none;
    const std::vector<double>& residuals =
        f.residuals.size() <= kMaxKeptResiduals ? f.residuals : none;
    return {{"name", to_string(f.model)},
            {"lambda", f.lambda},
            {"sigma", f.sigma},
            {"kappa", f.kappa},
            {"n_star", or_null(f.n_star())},
            {"status", to_string(f.status)},
            {"message", f.message},
            {"r2", f.r2},
            {"r2_space", "log seconds"},
            {"rss", f.rss},
            {"aicc", or_null(f.aicc)},
            {"parameters", f.parameters},
            {"residuals", residuals}};
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
                               {"seconds_low", or_null(p.seconds_low)},
                               {"seconds_high", or_null(p.seconds_high)}});
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
    json out = {
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
          {"confidence", or_null(r.confidence)},
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
    // Written where they say something, so that reports of earlier versions read back whole.
    if (!r.decided_by_rule.empty())
        out["recommendation"]["decided_by_rule"] = r.decided_by_rule;
    if (r.confidence_spread)
        out["recommendation"]["confidence_spread"] = spread_json(r.confidence_spread);
    return out;
}

nlohmann::json models_by_phase_json(const Recommendation& r) {
    json out = json::object();
    for (const auto& p : r.phases) {
        json model = p.selection ? to_json(*p.selection) : json(nullptr);
        if (p.selection)
            model["lambda_unit"] = r.lambda_unit;
        out[p.phase] = model;
    }
    return out;
}

namespace {

// A number the writer may have written as null (not finite): NaN then, as it was.
double number_or_nan(const JsonField& f) {
    return f.hint<double>().value_or(std::numeric_limits<double>::quiet_NaN());
}

CurveModel read_curve_model(const JsonField& name) {
    return value_named(kCurveModelNames, name.hint<std::string>().value_or(""))
        .value_or(CurveModel::amdahl);
}

FitStatus read_fit_status(const JsonField& status) {
    if (!status.hint<std::string>())
        return FitStatus::invalid_input;
    return named_value(status, kFitStatusNames);
}

ScalingFit read_scaling_fit(const JsonField& f) {
    ScalingFit fit;
    fit.model = read_curve_model(f["name"]);
    fit.lambda = number_or_nan(f["lambda"]);
    fit.sigma = number_or_nan(f["sigma"]);
    fit.kappa = number_or_nan(f["kappa"]);
    fit.status = read_fit_status(f["status"]);
    fit.message = f.hint<std::string>("message").value_or("");
    fit.r2 = number_or_nan(f["r2"]);
    fit.rss = number_or_nan(f["rss"]);
    fit.aicc = f.hint<double>("aicc");
    fit.parameters = f.hint<int>("parameters").value_or(0);
    fit.residuals = f.hint<std::vector<double>>("residuals").value_or(std::vector<double>{});
    fit.fitted_points = fit.residuals.size();
    return fit;
}

ModelSelection read_selection(const JsonField& m) {
    ModelSelection s;
    s.usl = read_scaling_fit(m["fits"]["usl"]);
    s.amdahl = read_scaling_fit(m["fits"]["amdahl"]);
    const auto name = m.hint<std::string>("name").value_or("none");
    s.any_converged = name != "none";
    s.chose_usl = name == "usl";
    s.reason = m.hint<std::string>("selection").value_or("");
    return s;
}

CostBasis read_cost_basis(const JsonField& basis) {
    const auto s = basis.hint<std::string>();
    // Reports of hugetune 0.1.0 held the basis in words.
    for (CostBasis b :
         {CostBasis::boot_table, CostBasis::alloc_and_zero, CostBasis::alloc_zeroed_once,
          CostBasis::alloc_only, CostBasis::alloc_only_flat})
        if (s == to_string(b) || s == describe(b))
            return b;
    // A fit written before the basis was recorded fitted the alloc phase as measured.
    if (!s)
        return CostBasis::alloc_and_zero;
    basis.fail("'" + *s + "' is not a cost basis this hugetune knows");
}

std::vector<Prediction> read_predictions(const JsonField& list) {
    std::vector<Prediction> out;
    for (std::size_t i = 0; i < list.hint_size(); ++i) {
        const JsonField p = list[i];
        out.push_back({p["threads_per_node"].positive_number(),
                       static_cast<int>(p["hugepage_alloc_threads"].whole_number({1, 1 << 20})),
                       p["seconds"].non_negative_number(), p.hint<double>("seconds_low"),
                       p.hint<double>("seconds_high")});
    }
    return out;
}

std::vector<Point> read_points(const JsonField& list) {
    std::vector<Point> out;
    for (std::size_t i = 0; i < list.hint_size(); ++i)
        out.push_back(
            {number_or_nan(list[i]["threads_per_node"]), number_or_nan(list[i]["seconds"])});
    return out;
}

std::vector<PhaseModel> read_phase_models(const JsonField& phases) {
    std::vector<PhaseModel> out;
    if (!phases.is_object())
        return out;
    for (const auto& [phase, entry] : phases.object().items()) {
        const JsonField e = phases[phase];
        PhaseModel p;
        p.phase = phase;
        if (e["model"].is_object())
            p.selection = read_selection(e["model"]);
        p.message = e.hint<std::string>("message").value_or("");
        out.push_back(std::move(p));
    }
    return out;
}

std::optional<ConfidenceSpread> read_spread(const JsonField& field) {
    if (!field.is_object())
        return std::nullopt;
    ConfidenceSpread s;
    s.low = field.hint<double>("low");
    s.high = field.hint<double>("high");
    s.sweeps = field.hint<int>("resampled_sweeps").value_or(0);
    s.by_rule = field.hint<int>("by_rule").value_or(0);
    s.same_decision = field.hint<int>("same_decision").value_or(0);
    return s;
}

void read_decision_block(const JsonField& rec, Recommendation& r) {
    r.decision = value_named(kDecisionNames, rec.hint<std::string>("decision").value_or(""))
                     .value_or(Decision::set);
    r.threads_per_node = rec.hint<double>("threads_per_node").value_or(1);
    r.hugepage_alloc_threads = rec.hint<int>("hugepage_alloc_threads").value_or(1);
    r.predicted_seconds = rec.hint<double>("predicted_seconds").value_or(0);
    if (rec["predicted_seconds_interval"].hint_size() == 2) {
        r.predicted_seconds_low = rec["predicted_seconds_interval"][0].hint<double>();
        r.predicted_seconds_high = rec["predicted_seconds_interval"][1].hint<double>();
    }
    r.default_threads = rec.hint<int>("default_threads").value_or(1);
    r.default_threads_per_node = rec.hint<double>("default_threads_per_node").value_or(1);
    r.predicted_default_seconds = rec.hint<double>("predicted_default_seconds").value_or(0);
    r.best_hugepage_alloc_threads =
        rec.hint<int>("best_hugepage_alloc_threads").value_or(r.hugepage_alloc_threads);
    r.predicted_best_seconds =
        rec.hint<double>("predicted_best_seconds").value_or(r.predicted_seconds);
    r.saving_seconds = rec.hint<double>("saving_seconds").value_or(0);
    r.confidence = rec.hint<double>("confidence");
    r.decided_by_rule = rec.hint<std::string>("decided_by_rule").value_or("");
    r.confidence_spread = read_spread(rec["confidence_spread"]);
    r.tolerance = rec.hint<double>("tolerance").value_or(r.tolerance);
    r.fallback = rec.hint<bool>("fallback").value_or(false);
    r.nodes = rec.hint<int>("nodes").value_or(1);
    r.cpu_cap = rec.hint<int>("cpu_cap").value_or(1);
    r.max_threads_per_node = rec.hint<int>("max_threads_per_node").value_or(1);
    r.pool_pages = rec.hint<double>("pool_pages").value_or(0);
    r.pool_source = rec.hint<std::string>("pool_source").value_or("");
    r.verdict = rec.hint<std::string>("verdict").value_or("");
}

}  // namespace

Recommendation read_fit(const JsonField& fit) {
    Recommendation r;
    const JsonField key = fit["key"];
    r.key = {key.hint<std::string>("microarch").value_or("unknown"),
             key.hint<int>("nodes").value_or(1), key.hint<int>("hw_threads_per_node").value_or(0),
             key.hint<std::uint64_t>("page_size_kb").value_or(0)};
    r.source = fit["input"].hint<std::string>("source").value_or("");
    r.basis = read_cost_basis(fit["cost_basis"]);
    const JsonField model = fit["model"];
    if (model.is_object())
        r.model = read_selection(model);
    r.curve = model.hint<std::string>("curve").value_or("");
    r.lambda_unit = model.hint<std::string>("lambda_unit").value_or("");
    r.series = read_points(model["points"]);
    r.phases = read_phase_models(fit["phases"]);
    read_decision_block(fit["recommendation"], r);
    r.predictions = read_predictions(fit["predictions"]);
    r.measured = read_predictions(fit["measured_boot_seconds"]);
    const JsonField bootstrap = fit["bootstrap"];
    r.bootstrap_method = bootstrap.hint<std::string>("method").value_or("");
    r.resamples = bootstrap.hint<int>("resamples").value_or(0);
    r.usable_resamples = bootstrap.hint<int>("usable_resamples").value_or(0);
    r.seed = bootstrap.hint<std::uint64_t>("seed").value_or(1);
    r.notes = fit.hint<std::vector<std::string>>("notes").value_or(std::vector<std::string>{});
    for (std::size_t i = 0; i < fit["warnings"].hint_size(); ++i)
        r.warnings.push_back({fit["warnings"][i]["code"].string(),
                              fit["warnings"][i].hint<std::string>("message").value_or("")});
    return r;
}

}  // namespace hugetune::model
