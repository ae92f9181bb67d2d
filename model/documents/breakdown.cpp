#include "model/documents/breakdown.hpp"

#include <nlohmann/json.hpp>

#include "model/documents/json_values.hpp"
#include "model/input/json_fields.hpp"

namespace hugetune::model {
namespace {

using nlohmann::json;

json estimate_json(const Estimate& e) {
    return {
        {"seconds", e.seconds}, {"seconds_low", or_null(e.low)}, {"seconds_high", or_null(e.high)}};
}

Estimate read_estimate(const JsonField& e) {
    e.object();
    return {e["seconds"].non_negative_number(), e["seconds_low"].optional_non_negative_number(),
            e["seconds_high"].optional_non_negative_number()};
}

json at_json(const BreakdownAt& b) {
    return {{"at", b.at},
            {"hugepage_alloc_threads", b.hugepage_alloc_threads},
            {"threads_per_node", b.threads_per_node},
            {"total", estimate_json(b.total)},
            {"allocation", estimate_json(b.allocation)},
            {"zeroing", b.zeroing ? estimate_json(*b.zeroing) : json(nullptr)},
            {"zero_phase", estimate_json(b.zero_phase)},
            {"separable", b.separable},
            {"vmemmap", b.vmemmap ? estimate_json(*b.vmemmap) : json(nullptr)},
            {"hvo_other_way", b.hvo_other_way ? estimate_json(*b.hvo_other_way) : json(nullptr)}};
}

BreakdownAt read_at(const JsonField& f) {
    f.object();
    BreakdownAt b;
    b.at = f["at"].string();
    if (b.at != "recommended" && b.at != "kernel_default")
        f["at"].fail("'" + b.at + "' is not one of recommended, kernel_default");
    b.hugepage_alloc_threads = static_cast<int>(f["hugepage_alloc_threads"].whole_number({1}));
    b.threads_per_node = f["threads_per_node"].positive_number();
    b.total = read_estimate(f["total"]);
    b.allocation = read_estimate(f["allocation"]);
    if (f["zeroing"].present())
        b.zeroing = read_estimate(f["zeroing"]);
    b.zero_phase = read_estimate(f["zero_phase"]);
    b.separable = f["separable"].boolean();
    if (f["vmemmap"].present())
        b.vmemmap = read_estimate(f["vmemmap"]);
    if (f["hvo_other_way"].present())
        b.hvo_other_way = read_estimate(f["hvo_other_way"]);
    return b;
}

}  // namespace

json to_json(const BootBreakdown& b) {
    json at = json::array();
    for (const auto& part : b.at)
        at.push_back(at_json(part));
    return {{"init_on_alloc", b.init_on_alloc},
            {"init_on_alloc_assumed", b.init_on_alloc_assumed},
            {"hvo", b.hvo ? json(*b.hvo) : json(nullptr)},
            {"at", at},
            {"vmemmap", {{"separable", b.hvo_measured}, {"note", b.hvo_note}}}};
}

json to_json(const std::vector<WhatIf>& rows) {
    json out = json::array();
    for (const auto& w : rows)
        out.push_back({{"parameter", w.parameter},
                       {"value", w.value},
                       {"hugepage_alloc_threads", w.hugepage_alloc_threads},
                       {"predicted", w.predicted ? estimate_json(*w.predicted) : json(nullptr)},
                       {"memory_saved_bytes", or_null(w.memory_saved_bytes)},
                       {"trade_off", w.trade_off},
                       {"note", w.note},
                       {"applied", false}});
    return out;
}

json to_json(const FirstTouch& t) {
    json rows = json::array();
    for (const auto& r : t.rows) {
        json row = estimate_json(r.time);
        row["threads_per_node"] = r.threads_per_node;
        row["threads"] = r.threads;
        rows.push_back(row);
    }
    return {{"gib", t.gib}, {"zeroable_hugepages", t.zeroable_hugepages}, {"rows", rows}};
}

std::optional<BootBreakdown> read_breakdown(const JsonField& f) {
    if (!f.present())
        return std::nullopt;
    f.object();
    BootBreakdown b;
    b.init_on_alloc = f["init_on_alloc"].boolean();
    b.init_on_alloc_assumed = f["init_on_alloc_assumed"].boolean();
    b.hvo = f["hvo"].optional_boolean();
    const std::size_t n = f["at"].array_size();
    if (n == 0)
        f["at"].fail("must hold the recommended value's breakdown");
    for (std::size_t i = 0; i < n; ++i)
        b.at.push_back(read_at(f["at"][i]));
    b.hvo_note = f["vmemmap"]["note"].string();
    b.hvo_measured = f["vmemmap"].hint<bool>("separable").value_or(false);
    return b;
}

std::vector<WhatIf> read_what_if(const JsonField& f) {
    std::vector<WhatIf> rows;
    if (!f.present())
        return rows;
    for (std::size_t i = 0; i < f.array_size(); ++i) {
        const JsonField r = f[i];
        r.object();
        WhatIf w;
        w.parameter = r["parameter"].string();
        w.value = r["value"].string();
        w.hugepage_alloc_threads = static_cast<int>(r["hugepage_alloc_threads"].whole_number({1}));
        if (r["predicted"].present())
            w.predicted = read_estimate(r["predicted"]);
        w.memory_saved_bytes = r["memory_saved_bytes"].optional_non_negative_number();
        w.trade_off = r["trade_off"].string();
        w.note = r["note"].string();
        if (r["applied"].boolean())
            r["applied"].fail("must be false: hugetune never applies a what-if");
        rows.push_back(std::move(w));
    }
    return rows;
}

std::optional<FirstTouch> read_first_touch(const JsonField& f) {
    if (!f.present())
        return std::nullopt;
    f.object();
    FirstTouch t;
    t.gib = f["gib"].positive_number();
    t.zeroable_hugepages = f["zeroable_hugepages"].boolean();
    for (std::size_t i = 0; i < f["rows"].array_size(); ++i) {
        const JsonField r = f["rows"][i];
        FirstTouchRow row;
        row.threads_per_node = static_cast<int>(r["threads_per_node"].whole_number({1}));
        row.threads = static_cast<int>(r["threads"].whole_number({1}));
        row.time = read_estimate(r);
        t.rows.push_back(row);
    }
    return t;
}

}  // namespace hugetune::model
