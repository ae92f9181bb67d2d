#include "tuner/boot/report_input.hpp"

#include "tuner/system/json_file.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include "tuner/boot/token_edit.hpp"
#include "tuner/kernel/cmdline.hpp"
#include "tuner/system/errors.hpp"

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

ReportRecommendation read_report(const std::filesystem::path& path, bool need_prediction) {
    std::string where = "--report " + path.string();
    ReportRecommendation r;
    r.document = read_json_file(path);
    const auto& doc = r.document;
    if (!doc.is_object() || !doc.contains("recommendation") || !doc["recommendation"].is_object())
        throw UsageError(where + ": no 'recommendation' object; is this a hugetune report?");
    const auto& rec = doc["recommendation"];
    const auto& threads =
        rec.contains("hugepage_alloc_threads") ? rec["hugepage_alloc_threads"] : nlohmann::json();
    if (!threads.is_number_unsigned() || threads.get<std::uint64_t>() < 1 ||
        threads.get<std::uint64_t>() > kMaxAllocThreads)
        throw UsageError(where +
                         ": recommendation.hugepage_alloc_threads must be an integer from 1 to " +
                         std::to_string(kMaxAllocThreads) + "; give --value N instead");
    r.threads = threads.get<std::uint64_t>();
    if (!rec.contains("kernel_cmdline") || !rec["kernel_cmdline"].is_string())
        throw UsageError(where + ": recommendation.kernel_cmdline is missing or not a string");
    r.kernel_cmdline = rec["kernel_cmdline"].get<std::string>();
    auto in_cmdline = parse_kernel_cmdline(r.kernel_cmdline).last(bootloader::kAllocThreadsParam);
    auto parsed = in_cmdline ? parse_kernel_ulong(*in_cmdline) : std::nullopt;
    if (parsed != std::optional<std::uint64_t>(r.threads))
        throw UsageError(where + ": recommendation.kernel_cmdline '" + r.kernel_cmdline +
                         "' does not say hugepage_alloc_threads=" + std::to_string(r.threads) +
                         "; the report is inconsistent, run 'hugetune run' again");
    if (rec.contains("predicted_seconds")) {
        if (!rec["predicted_seconds"].is_number() || rec["predicted_seconds"].get<double>() <= 0)
            throw UsageError(where +
                             ": recommendation.predicted_seconds must be a positive number");
        r.predicted_seconds = rec["predicted_seconds"].get<double>();
    } else if (need_prediction) {
        throw UsageError(where +
                         ": recommendation.predicted_seconds is missing, so there is "
                         "nothing to compare the boot log with");
    }
    if (doc.contains("kernel") && doc["kernel"].is_object() && doc["kernel"].contains("release") &&
        doc["kernel"]["release"].is_string())
        r.kernel_release = doc["kernel"]["release"].get<std::string>();
    return r;
}

}  // namespace hugetune
