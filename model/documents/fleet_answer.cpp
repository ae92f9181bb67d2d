// The one writer and the one reader of a SKU's fleet answer.
#include "model/documents/fleet_answer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "model/alloc_threads.hpp"
#include "model/documents/fit.hpp"
#include "model/documents/json_values.hpp"
#include "model/fleet/fleet.hpp"
#include "model/input/json_fields.hpp"
#include "model/text.hpp"

namespace hugetune::model::fleet {
namespace {

using nlohmann::json;

constexpr const char* kAnswerFix = "compute the answer again with 'hugetune fleet recommend'";

SkuStatus read_status(const JsonField& field) {
    const std::string text = field.string();
    for (const SkuStatus s : kSkuStatuses)
        if (to_string(s) == text)
            return s;
    field.fail("'" + text + "' is not one of " +
               join(kSkuStatuses, ", ", [](SkuStatus s) { return to_string(s); }));
}

int count(const JsonField& field) {
    return static_cast<int>(field.whole_number({0, 1'000'000'000}));
}

void read_value(const JsonField& doc, FleetAnswer& a) {
    a.decision = read_decision(doc["decision"]);
    a.hugepage_alloc_threads =
        static_cast<std::uint64_t>(doc["hugepage_alloc_threads"].whole_number(
            {1, static_cast<std::int64_t>(kMaxAllocThreads)}));
    a.kernel_cmdline = doc["kernel_cmdline"].string();
    const std::string expected =
        a.decision == Decision::set ? alloc_threads_setting(a.hugepage_alloc_threads) : "";
    if (a.kernel_cmdline != expected)
        doc["kernel_cmdline"].fail("'" + a.kernel_cmdline + "' is not '" + expected +
                                   "', what decision and hugepage_alloc_threads say");
    a.predicted_seconds = doc["predicted_seconds"].non_negative_number();
    a.predicted_seconds_low = doc["predicted_seconds_low"].optional_non_negative_number();
    a.predicted_seconds_high = doc["predicted_seconds_high"].optional_non_negative_number();
    const auto saving = doc.hint<double>("saving_seconds");
    if (!saving || !std::isfinite(*saving))
        doc["saving_seconds"].fail("must be a number");
    a.saving_seconds = *saving;
    a.confidence = doc["confidence"].optional_non_negative_number();
    if (a.confidence && *a.confidence > 1)
        doc["confidence"].fail("must be from 0 to 1");
}

json reasons_json(const std::vector<StatusReason>& reasons) {
    json out = json::array();
    for (const auto& r : reasons)
        out.push_back({{"code", to_string(r.code)}, {"reason", r.reason}});
    return out;
}

json excluded_json(const std::vector<ExcludedHost>& excluded) {
    json out = json::array();
    for (const auto& e : excluded)
        out.push_back({{"host", e.host}, {"reasons", e.reasons}});
    return out;
}

json pool_json(const FleetPool& p) {
    return {{"pages", p.pages},
            {"page_size_kb", p.page_size_kb},
            {"source", p.source},
            {"hosts", p.hosts},
            {"other_hosts", p.other_hosts}};
}

std::vector<StatusReason> read_reasons(const JsonField& field) {
    std::vector<StatusReason> out;
    const std::size_t n = field.array_size();
    for (std::size_t i = 0; i < n; ++i) {
        const JsonField r = field[i];
        r.object();
        out.push_back({read_status(r["code"]), r["reason"].string()});
        if (is_settled(out.back().code))
            r["code"].fail("'" + to_string(out.back().code) + "' is no reason against settling");
    }
    return out;
}

std::vector<ExcludedHost> read_excluded(const JsonField& field) {
    std::vector<ExcludedHost> out;
    const std::size_t n = field.array_size();
    for (std::size_t i = 0; i < n; ++i) {
        const JsonField e = field[i];
        e.object();
        ExcludedHost host{e["host"].string(), {}};
        const std::size_t reasons = e["reasons"].array_size();
        for (std::size_t k = 0; k < reasons; ++k)
            host.reasons.push_back(e["reasons"][k].string());
        out.push_back(std::move(host));
    }
    return out;
}

FleetPool read_pool(const JsonField& field) {
    field.object();
    FleetPool p;
    p.pages = static_cast<std::uint64_t>(
        field["pages"].whole_number({0, std::numeric_limits<std::int64_t>::max()}));
    p.page_size_kb = static_cast<std::uint64_t>(field["page_size_kb"].whole_number({0, 1LL << 40}));
    p.source = field["source"].string();
    p.hosts = count(field["hosts"]);
    p.other_hosts = count(field["other_hosts"]);
    return p;
}

constexpr std::pair<BootRefusal, const char*> kRefusalCodes[] = {
    {BootRefusal::above_cpus, "above_cpus"},         {BootRefusal::not_asked, "not_asked"},
    {BootRefusal::implausible, "implausible"},       {BootRefusal::virtual_machine, "virtual"},
    {BootRefusal::ambiguous_host, "ambiguous_host"},
};

const char* refusal_code(BootRefusal why) {
    for (const auto& [value, code] : kRefusalCodes)
        if (value == why)
            return code;
    return "not_asked";
}

BootRefusal read_refusal(const JsonField& field) {
    const std::string code = field.string();
    for (const auto& [value, name] : kRefusalCodes)
        if (code == name)
            return value;
    field.fail("'" + code +
               "' is not above_cpus, not_asked, implausible, virtual or ambiguous_host");
}

json boots_json(const std::optional<SkuBoots>& boots) {
    if (!boots)
        return nullptr;
    const SkuBoots& b = *boots;
    json values = json::array();
    for (const auto& v : b.values)
        values.push_back({{"threads", v.threads},
                          {"hosts", v.hosts},
                          {"boots", v.boots},
                          {"ms_per_1000_pages", v.ms_per_1000_pages},
                          {"low", v.low},
                          {"high", v.high},
                          {"predicted_ms_per_1000_pages", or_null(v.predicted_ms_per_1000_pages)}});
    json refused = json::array();
    for (const auto& f : b.refused)
        refused.push_back({{"threads", f.threads},
                           {"why", refusal_code(f.why)},
                           {"hosts", f.hosts},
                           {"boots", f.boots},
                           {"reason", f.reason}});
    return {{"kernel_family", b.kernel_family},
            {"hvo", or_null(b.hvo)},
            {"boots", b.boots},
            {"hosts", b.hosts},
            {"other_boots", b.other_boots},
            {"refused_boots", b.refused_boots},
            {"refused", refused},
            {"values", values},
            {"calibration", or_null(b.calibration)},
            {"calibration_low", or_null(b.calibration_low)},
            {"calibration_high", or_null(b.calibration_high)},
            {"decided", or_null(b.decided)},
            {"disputed", or_null(b.disputed)},
            {"paired_hosts", b.paired_hosts},
            {"reason", b.reason}};
}

std::optional<SkuBoots> read_boots(const JsonField& field) {
    if (!field.present())
        return std::nullopt;
    field.object();
    SkuBoots b;
    b.kernel_family = field["kernel_family"].string();
    b.hvo = field["hvo"].optional_boolean();
    b.boots = count(field["boots"]);
    b.hosts = count(field["hosts"]);
    b.other_boots = count(field["other_boots"]);
    b.refused_boots = count(field["refused_boots"]);
    const std::size_t refused = field["refused"].array_size();
    for (std::size_t i = 0; i < refused; ++i) {
        const JsonField f = field["refused"][i];
        f.object();
        RefusedBoots r;
        r.threads = static_cast<int>(f["threads"].whole_number({1, 1LL << 31}));
        r.why = read_refusal(f["why"]);
        r.hosts = count(f["hosts"]);
        r.boots = count(f["boots"]);
        r.reason = f["reason"].string();
        b.refused.push_back(std::move(r));
    }
    const std::size_t n = field["values"].array_size();
    for (std::size_t i = 0; i < n; ++i) {
        const JsonField v = field["values"][i];
        v.object();
        BootValue value;
        value.threads = static_cast<int>(
            v["threads"].whole_number({1, static_cast<std::int64_t>(kMaxAllocThreads)}));
        value.hosts = count(v["hosts"]);
        value.boots = count(v["boots"]);
        value.ms_per_1000_pages = v["ms_per_1000_pages"].non_negative_number();
        value.low = v["low"].non_negative_number();
        value.high = v["high"].non_negative_number();
        value.predicted_ms_per_1000_pages =
            v["predicted_ms_per_1000_pages"].optional_non_negative_number();
        b.values.push_back(value);
    }
    b.calibration = field["calibration"].optional_non_negative_number();
    b.calibration_low = field["calibration_low"].optional_non_negative_number();
    b.calibration_high = field["calibration_high"].optional_non_negative_number();
    if (const JsonField decided = field["decided"]; decided.present())
        b.decided = static_cast<int>(
            decided.whole_number({1, static_cast<std::int64_t>(kMaxAllocThreads)}));
    if (const JsonField disputed = field["disputed"]; disputed.present())
        b.disputed = static_cast<int>(
            disputed.whole_number({1, static_cast<std::int64_t>(kMaxAllocThreads)}));
    b.paired_hosts = count(field["paired_hosts"]);
    b.reason = field["reason"].string();
    return b;
}

}  // namespace

json to_json(const FleetAnswer& a) {
    return {{"sku", to_string(a.sku)},
            {"sku_fields", to_json(a.sku)},
            {"hosts", a.hosts},
            {"runs", a.runs},
            {"status", to_string(a.status)},
            {"status_reasons", reasons_json(a.status_reasons)},
            {"status_reason", a.status_reason},
            {"excluded_hosts", excluded_json(a.excluded)},
            {"pool", pool_json(a.pool)},
            {"decision", to_string(a.decision)},
            {"hugepage_alloc_threads", a.hugepage_alloc_threads},
            {"kernel_cmdline", a.kernel_cmdline},
            {"predicted_seconds", a.predicted_seconds},
            {"predicted_seconds_low", or_null(a.predicted_seconds_low)},
            {"predicted_seconds_high", or_null(a.predicted_seconds_high)},
            {"saving_seconds", a.saving_seconds},
            {"confidence", or_null(a.confidence)},
            {"verified_boots", a.verified_boots},
            {"verification_ratio", or_null(a.verification_ratio)},
            {"boots", boots_json(a.boots)},
            {"recommendation", a.recommendation ? to_json(*a.recommendation) : json::object()}};
}

FleetAnswer read_fleet_answer(const json& document, const InputSource& input) {
    const JsonField doc(document, kAnswerFix, input);
    doc.object();
    FleetAnswer a;
    a.sku = read_sku(doc["sku_fields"]);
    if (const std::string key = doc["sku"].string(); key != to_string(a.sku))
        doc["sku"].fail("'" + key + "' is not '" + to_string(a.sku) + "', what sku_fields say");
    a.hosts = count(doc["hosts"]);
    a.runs = count(doc["runs"]);
    a.status = read_status(doc["status"]);
    a.status_reasons = read_reasons(doc["status_reasons"]);
    if (is_settled(a.status) != a.status_reasons.empty() ||
        (!a.status_reasons.empty() && a.status_reasons.front().code != a.status))
        doc["status"].fail("'" + to_string(a.status) +
                           "' is not what status_reasons say (settled when none, else the "
                           "first reason's code)");
    a.status_reason = doc["status_reason"].string();
    a.excluded = read_excluded(doc["excluded_hosts"]);
    a.pool = read_pool(doc["pool"]);
    read_value(doc, a);
    a.verified_boots = count(doc["verified_boots"]);
    a.verification_ratio = doc["verification_ratio"].optional_non_negative_number();
    a.boots = read_boots(doc["boots"]);
    if (std::any_of(a.status_reasons.begin(), a.status_reasons.end(), [](const auto& r) {
            return r.code == SkuStatus::disagrees_with_boots;
        }) != (a.boots && a.boots->disputed))
        doc["status_reasons"].fail(
            "a disagrees_with_boots reason stands exactly when boots dispute the sweeps' value");
    const bool by_boots = a.boots && a.boots->decided;
    if ((a.status == SkuStatus::settled_by_boots) != by_boots ||
        (by_boots && a.hugepage_alloc_threads != static_cast<std::uint64_t>(*a.boots->decided)))
        doc["status"].fail("'" + to_string(a.status) +
                           "' is not what boots say (settled_by_boots exactly when they decided "
                           "a value, and that value is hugepage_alloc_threads)");
    if (!doc["recommendation"].object().empty())
        a.recommendation = read_fit(doc["recommendation"]);
    return a;
}

}  // namespace hugetune::model::fleet
