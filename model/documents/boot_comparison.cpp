#include "model/documents/boot_comparison.hpp"

#include <nlohmann/json.hpp>

#include "model/input/json_fields.hpp"

namespace hugetune::model {

nlohmann::json to_json(const BootComparison& c) {
    const auto optional_number = [](const std::optional<double>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : c.rows)
        rows.push_back({{"threads", row.threads},
                        {"boots", row.boots},
                        {"measured_ms", row.measured_ms},
                        {"predicted_ms", row.predicted_ms},
                        {"ratio", row.ratio}});
    nlohmann::json what_if = nlohmann::json::array();
    for (const auto& w : c.what_if) {
        nlohmann::json row = {{"parameter", w.parameter},
                              {"value", w.value},
                              {"threads", w.threads},
                              {"recommended", w.recommended},
                              {"boots", w.boots},
                              {"measured_ms", w.measured_ms},
                              {"predicted_ms", nullptr},
                              {"predicted_low_ms", nullptr},
                              {"predicted_high_ms", nullptr},
                              {"ratio", w.ratio ? nlohmann::json(*w.ratio) : nullptr},
                              {"note", w.note}};
        if (w.predicted) {
            row["predicted_ms"] = w.predicted->ms;
            row["predicted_low_ms"] = optional_number(w.predicted->low_ms);
            row["predicted_high_ms"] = optional_number(w.predicted->high_ms);
        }
        what_if.push_back(row);
    }
    const auto optional_bool = [](const std::optional<bool>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    return {{"pages", c.pages},
            {"page_size_kb", c.page_size_kb},
            {"kernel_release", c.kernel_release ? nlohmann::json(*c.kernel_release) : nullptr},
            {"init_on_alloc", optional_bool(c.init_on_alloc)},
            {"hvo", optional_bool(c.hvo)},
            {"rows", rows},
            {"what_if", what_if},
            {"unmatched", c.unmatched}};
}

BootComparison read_boot_comparison(const JsonField& f) {
    f.object();
    BootComparison c;
    c.pages = static_cast<std::uint64_t>(f["pages"].whole_number({1}));
    c.page_size_kb = static_cast<std::uint64_t>(f["page_size_kb"].whole_number({4}));
    c.kernel_release = f["kernel_release"].optional_string();
    c.init_on_alloc = f["init_on_alloc"].optional_boolean();
    c.hvo = f["hvo"].optional_boolean();
    const JsonField rows = f["rows"];
    for (std::size_t i = 0; i < rows.array_size(); ++i) {
        const JsonField r = rows[i];
        r.object();
        c.rows.push_back({static_cast<int>(r["threads"].whole_number({1})),
                          static_cast<std::size_t>(r["boots"].whole_number({1})),
                          r["measured_ms"].positive_number(), r["predicted_ms"].positive_number(),
                          r["ratio"].positive_number()});
    }
    const JsonField what_if = f["what_if"];
    for (std::size_t i = 0; what_if.present() && i < what_if.array_size(); ++i) {
        const JsonField r = what_if[i];
        r.object();
        BootWhatIfRow w;
        w.parameter = r["parameter"].string();
        w.value = r["value"].string();
        w.threads = static_cast<int>(r["threads"].whole_number({1}));
        w.recommended = r["recommended"].boolean();
        w.boots = static_cast<std::size_t>(r["boots"].whole_number({1}));
        w.measured_ms = r["measured_ms"].positive_number();
        if (const auto ms = r["predicted_ms"].optional_non_negative_number())
            w.predicted = PredictedMs{*ms, r["predicted_low_ms"].optional_non_negative_number(),
                                      r["predicted_high_ms"].optional_non_negative_number()};
        w.ratio = r["ratio"].optional_positive_number();
        w.note = r["note"].string();
        c.what_if.push_back(std::move(w));
    }
    const JsonField unmatched = f["unmatched"];
    for (std::size_t i = 0; unmatched.present() && i < unmatched.array_size(); ++i)
        c.unmatched.push_back(unmatched[i].string());
    return c;
}

}  // namespace hugetune::model
