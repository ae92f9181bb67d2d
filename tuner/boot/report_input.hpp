// The parts of a `hugetune run` report that apply and verify read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/alloc_threads.hpp"

namespace hugetune {

struct ReportRecommendation {
    std::uint64_t threads = 0;                // recommendation.hugepage_alloc_threads
    std::string kernel_cmdline;               // recommendation.kernel_cmdline
    std::optional<double> predicted_seconds;  // recommendation.predicted_seconds
    // recommendation.decision "keep_default": the value is the kernel's default and nothing
    // is to change; "set" or absent (older reports): apply the value.
    bool keep_default = false;
    std::optional<std::string> kernel_release;  // kernel.release of the measured machine
    // The pool predicted_seconds is for (boot_pool) and what the prediction assumed.
    std::optional<std::uint64_t> pool_pages;         // boot_pool.pages
    std::optional<std::uint64_t> pool_page_size_kb;  // boot_pool.page_size_kb
    std::optional<bool> init_on_alloc;               // kernel.init_on_alloc
    std::optional<int> online_cpus;                  // kernel.online_cpus
    nlohmann::json document;                         // the whole report
};

// Throws UsageError ("FILE: problem; fix") for a missing, unreadable or malformed file and
// model::InputError about FILE, setting "report" ("json.path: problem; fix"), for a missing,
// ill-typed or inconsistent field. `need_prediction`: predicted_seconds must be there.
// `threads_fix`: what to do instead when the recommended thread count is unusable.
ReportRecommendation read_report(
    const std::filesystem::path& path, bool need_prediction,
    const std::string& threads_fix = "give the report written by 'hugetune run'");

// Validates a thread count given by the user or found in a report: 1..kMaxAllocThreads.
std::optional<std::uint64_t> parse_thread_count(std::string_view text);

}  // namespace hugetune
