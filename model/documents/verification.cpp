#include "model/documents/verification.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "model/alloc_threads.hpp"
#include "model/boot_plausibility.hpp"
#include "model/documents/json_values.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

using nlohmann::json;

std::optional<double> within(const JsonField& field, std::optional<double> value, double low,
                             double high) {
    if (value && (*value < low || *value > high))
        field.fail(significant_text(*value, 6) + " lies outside " + significant_text(low, 6) +
                   " to " + significant_text(high, 6));
    return value;
}

std::optional<VerifiedPool> read_pool(const JsonField& field) {
    if (!field.present())
        return std::nullopt;
    field.object();
    VerifiedPool pool;
    pool.pages = static_cast<std::uint64_t>(field["pages"].whole_number({0}));
    pool.page_size_kb = static_cast<std::uint64_t>(field["page_size_kb"].whole_number({4}));
    pool.init_on_alloc = field["init_on_alloc"].optional_boolean();
    return pool;
}

// What verify requires of a boot it calls verified (tuner/boot/boot_verify.cpp), so that a
// stored block cannot claim more than its own numbers allow.
void check_verified(const JsonField& block, const Verification& v) {
    if (!v.problems.empty())
        block["problems"].fail("must be empty when verified is true");
    if (!v.measured_ms || !v.threads)
        block[v.measured_ms ? "threads" : "measured_ms"].fail(
            "missing, but verified is true: a verified boot has the kernel's allocation line");
    if (v.ratio)
        if (auto why = implausible_ratio(*v.ratio))
            block["ratio"].fail(*why + ", so verified must be false");
    if (v.pool && v.pool->init_on_alloc.value_or(false))
        if (auto why = faster_than_zeroing(*v.measured_ms, v.pool->pages, v.pool->page_size_kb,
                                           *v.threads))
            block["measured_ms"].fail(*why + ", so verified must be false");
}

}  // namespace

json warning_json(const Warning& w) {
    return {{"code", w.code}, {"message", w.message}};
}

Warning read_warning(const JsonField& field) {
    field.object();
    Warning w{field["code"].string(), field["message"].string()};
    if (w.code.empty())
        field["code"].fail("must not be empty");
    if (w.message.empty())
        field["message"].fail("must not be empty");
    return w;
}

json to_json(const Verification& v) {
    json j;
    j["verified"] = v.verified;
    j["measured_ms"] = or_null(v.measured_ms);
    j["threads"] = or_null(v.threads);
    j["expected_threads"] = or_null(v.expected_threads);
    j["predicted_ms"] = or_null(v.predicted_ms);
    j["pool_predicted_ms"] = or_null(v.pool_predicted_ms);
    j["ratio"] = or_null(v.ratio);
    j["ratio_refused"] = v.ratio_refused ? warning_json(*v.ratio_refused) : json();
    j["pool"] = v.pool ? json{{"pages", v.pool->pages},
                              {"page_size_kb", v.pool->page_size_kb},
                              {"init_on_alloc", or_null(v.pool->init_on_alloc)}}
                       : json();
    if (v.kernel_release)
        j["kernel_release"] = *v.kernel_release;
    if (v.boot_id)
        j["boot_id"] = *v.boot_id;
    j["cmdline_value"] = or_null(v.cmdline_value);
    j["log_line"] = or_null(v.log_line);
    j["problems"] = json::array();
    for (const auto& p : v.problems)
        j["problems"].push_back(warning_json(p));
    return j;
}

Verification read_verification(const JsonField& block) {
    block.object();
    Verification v;
    v.verified = block["verified"].boolean();
    const auto threads = WholeRange{1, static_cast<std::int64_t>(kMaxAllocThreads)};
    v.measured_ms =
        block["measured_ms"].optional_count({0, static_cast<std::int64_t>(kMaxBootAllocationMs)});
    v.threads = block["threads"].optional_count(threads);
    v.expected_threads = block["expected_threads"].optional_count(threads);
    v.predicted_ms = within(block["predicted_ms"], block["predicted_ms"].optional_positive_number(),
                            0, kMaxPredictedMs);
    v.pool_predicted_ms =
        within(block["pool_predicted_ms"], block["pool_predicted_ms"].optional_positive_number(), 0,
               kMaxPredictedMs);
    v.ratio = within(block["ratio"], block["ratio"].optional_non_negative_number(), 0,
                     kMaxVerificationRatio);
    if (v.ratio && v.measured_ms && v.pool_predicted_ms) {
        const double made_of = static_cast<double>(*v.measured_ms) / *v.pool_predicted_ms;
        if (std::abs(*v.ratio - made_of) > kRatioTolerance * made_of)
            block["ratio"].fail("is not measured_ms / pool_predicted_ms (" +
                                significant_text(made_of, 6) + ")");
    }
    if (block["ratio_refused"].present())
        v.ratio_refused = read_warning(block["ratio_refused"]);
    v.pool = read_pool(block["pool"]);
    v.kernel_release = block["kernel_release"].optional_string();
    v.boot_id = block["boot_id"].optional_string();
    v.cmdline_value = block["cmdline_value"].optional_string();
    v.log_line = block["log_line"].optional_string();
    const JsonField problems = block["problems"];
    for (std::size_t i = 0; i < problems.array_size(); ++i)
        v.problems.push_back(read_warning(problems[i]));
    if (v.verified)
        check_verified(block, v);
    return v;
}

}  // namespace hugetune::model
