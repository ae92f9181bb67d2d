#include "tuner/boot/report_input.hpp"

#include <charconv>
#include <limits>

#include "model/alloc_threads.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/report_version.hpp"
#include "tuner/system/errors.hpp"
#include "tuner/system/json_file.hpp"

namespace hugetune {

std::optional<std::uint64_t> parse_thread_count(std::string_view text) {
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        return std::nullopt;
    if (v < 1 || v > kMaxAllocThreads)
        return std::nullopt;
    return v;
}

namespace {

using model::JsonField;

void check_schema_version(const JsonField& version) {
    const std::string supported = "this hugetune reads version " +
                                  std::to_string(kReportSchemaVersion) +
                                  "; give a report written by this version of 'hugetune run'";
    if (!version.present())
        version.with_fix(supported).fail("missing");
    const JsonField value = version.with_fix(supported);
    const std::int64_t number = value.whole_number({std::numeric_limits<std::int64_t>::min()});
    if (number != kReportSchemaVersion)
        value.fail(std::to_string(number) + " is not supported");
}

// The recommendation's fields; throws model::InputError naming the field.
ReportRecommendation read_recommendation(const nlohmann::json& document, bool need_prediction,
                                         const std::string& threads_fix,
                                         const model::InputSource& input) {
    const JsonField doc(document, "give the report written by 'hugetune run'", input);
    check_schema_version(doc["schema_version"]);
    const JsonField rec = doc["recommendation"];
    rec.with_fix("is this a hugetune report?").object();
    ReportRecommendation r;
    r.threads = static_cast<std::uint64_t>(rec["hugepage_alloc_threads"]
                                               .with_fix(threads_fix)
                                               .whole_number({
                                                   1,
                                                   static_cast<std::int64_t>(kMaxAllocThreads),
                                               }));
    // Only the validated number leaves this function: a kernel_cmdline that says anything else
    // (another parameter, init=/bin/sh) would be printed for scripts to paste into the boot
    // configuration.
    r.kernel_cmdline = alloc_threads_setting(r.threads);
    if (const std::string given = rec["kernel_cmdline"].string(); given != r.kernel_cmdline)
        rec["kernel_cmdline"]
            .with_fix("the report is inconsistent or edited; run 'hugetune run' again")
            .fail("'" + given + "' is not '" + r.kernel_cmdline +
                  "', what recommendation.hugepage_alloc_threads says");
    // Absent in reports written before the decision was recorded: they always set their value.
    if (const JsonField decision = rec["decision"]; decision.present()) {
        const std::string d = decision.string();
        if (d != "set" && d != "keep_default")
            decision.with_fix("give the report written by 'hugetune run'")
                .fail("'" + d + "' is not 'set' or 'keep_default'");
        r.keep_default = d == "keep_default";
    }
    const JsonField predicted = rec["predicted_seconds"];
    if (need_prediction && !predicted.present())
        predicted
            .with_fix(
                "the boot log has nothing to be compared with; give the report written by "
                "'hugetune run'")
            .fail("missing");
    r.predicted_seconds = predicted.optional_positive_number();
    r.kernel_release = doc["kernel"]["release"].hint<std::string>();
    if (const JsonField pool = doc["boot_pool"]; pool.present()) {
        r.pool_pages = static_cast<std::uint64_t>(pool["pages"].whole_number());
        r.pool_page_size_kb = static_cast<std::uint64_t>(pool["page_size_kb"].whole_number({4}));
    }
    r.init_on_alloc = doc["kernel"]["init_on_alloc"].hint<bool>();
    r.online_cpus = doc["kernel"]["online_cpus"].hint<int>();
    return r;
}

}  // namespace

ReportRecommendation read_report(const std::filesystem::path& path, bool need_prediction,
                                 const std::string& threads_fix) {
    nlohmann::json document = read_json_file(path);
    // The command line puts its flag in front: "--report FILE: field: problem; fix".
    ReportRecommendation r =
        read_recommendation(document, need_prediction, threads_fix, {path.string(), "report"});
    r.document = std::move(document);
    return r;
}

}  // namespace hugetune
