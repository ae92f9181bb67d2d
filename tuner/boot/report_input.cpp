#include "tuner/boot/report_input.hpp"

#include <charconv>
#include <limits>

#include "model/alloc_threads.hpp"
#include "model/errors.hpp"
#include "model/input/fit_input.hpp"
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

model::Report read_report_file(const std::filesystem::path& path,
                               const model::ReportReading& reading) {
    // The command line puts its flag in front: "--report FILE: field: problem; fix".
    model::ReportReading named = reading;
    named.input = {path.string(), "report"};
    return model::read_report(read_json_file(path), named);
}

}  // namespace hugetune
