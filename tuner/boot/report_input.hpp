// The parts of a `hugetune run` report that apply and verify read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hugetune {

struct ReportRecommendation {
    std::uint64_t threads = 0;                  // recommendation.hugepage_alloc_threads
    std::string kernel_cmdline;                 // recommendation.kernel_cmdline
    std::optional<double> predicted_seconds;    // recommendation.predicted_seconds
    std::optional<std::string> kernel_release;  // kernel.release of the measured machine
    nlohmann::json document;                    // the whole report
};

// Throws UsageError ("FILE: problem; fix") for a missing, unreadable or malformed file and
// SettingError "report" ("FILE: json.path: problem; fix") for a missing, ill-typed or
// inconsistent field. `need_prediction`: predicted_seconds must be there.
ReportRecommendation read_report(const std::filesystem::path& path, bool need_prediction);

// Validates a thread count given by the user or found in a report: 1..4096.
std::optional<std::uint64_t> parse_thread_count(std::string_view text);
inline constexpr std::uint64_t kMaxAllocThreads = 4096;

}  // namespace hugetune
