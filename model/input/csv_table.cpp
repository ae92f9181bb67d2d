// Reads `threads_per_node,seconds[,phase,...]` tables.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "model/input/fit_input.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (true) {
        const auto comma = line.find(',', start);
        fields.push_back(trim(line.substr(start, comma - start)));
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return fields;
}

std::string in_quotes(std::string_view s) {
    return "'" + std::string(s) + "'";
}

int parse_threads(std::string_view cell, int line) {
    long value = 0;
    const auto* end = cell.data() + cell.size();
    auto [ptr, ec] = std::from_chars(cell.data(), end, value);
    if (cell.empty() || ec != std::errc() || ptr != end) {
        double as_double = 0;
        auto [p2, ec2] = std::from_chars(cell.data(), end, as_double);
        if (!cell.empty() && ec2 == std::errc() && p2 == end)
            throw InputError(
                line, "threads_per_node " + in_quotes(cell) + " is not a whole number of threads");
        throw InputError(line, "threads_per_node " + in_quotes(cell) + " is not a number");
    }
    if (value <= 0)
        throw InputError(line, "threads_per_node " + in_quotes(cell) + " must be at least 1");
    if (value > 1'000'000)
        throw InputError(line, "threads_per_node " + in_quotes(cell) + " is implausibly large");
    return static_cast<int>(value);
}

double parse_seconds(std::string_view cell, int line) {
    double value = 0;
    const auto* end = cell.data() + cell.size();
    auto [ptr, ec] = std::from_chars(cell.data(), end, value);
    if (cell.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
        throw InputError(line, "seconds " + in_quotes(cell) + " is not a number");
    if (value <= 0)
        throw InputError(line, "seconds " + in_quotes(cell) + " must be above 0");
    return value;
}

const std::set<std::string_view> kCsvPhases = {kPhaseBoot, kPhaseAlloc, kPhaseZero, kPhaseGrow};

}  // namespace

SweepData parse_csv_table(std::string_view text) {
    const std::string expected = "expected a header line 'threads_per_node,seconds'";
    SweepData data;
    data.source = "csv";
    std::optional<std::size_t> col_threads, col_seconds, col_phase;
    std::size_t columns = 0;
    bool have_header = false;
    int header_line = 1;
    int line_no = 0;
    int last_line = 0;
    std::map<std::string, PhaseSeries> by_phase;
    std::map<std::string, int> first_line_of;

    std::size_t pos = 0;
    while (pos <= text.size()) {
        const auto nl = text.find('\n', pos);
        const auto raw = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
        pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        ++line_no;
        const auto line = trim(raw);
        if (line.empty())
            continue;
        if (!have_header) {
            const auto names = split_fields(line);
            for (std::size_t i = 0; i < names.size(); ++i) {
                std::optional<std::size_t>* slot = names[i] == "threads_per_node" ? &col_threads
                                                   : names[i] == "seconds"        ? &col_seconds
                                                   : names[i] == "phase"          ? &col_phase
                                                                                  : nullptr;
                if (slot == nullptr)
                    continue;
                if (*slot)
                    throw InputError(line_no, "column " + in_quotes(names[i]) + " appears twice");
                *slot = i;
            }
            if (!col_threads || !col_seconds) {
                const bool numeric = std::isdigit(static_cast<unsigned char>(line.front())) != 0;
                throw InputError(line_no, numeric ? "missing header; " + expected
                                                  : "header " + in_quotes(line) +
                                                        " has no threads_per_node or seconds "
                                                        "column; " +
                                                        expected);
            }
            columns = names.size();
            have_header = true;
            header_line = line_no;
            continue;
        }
        const auto cells = split_fields(line);
        if (cells.size() < columns)
            throw InputError(line_no, std::to_string(cells.size()) +
                                          " field(s) but the header has " +
                                          std::to_string(columns));
        const int threads = parse_threads(cells[*col_threads], line_no);
        const double seconds = parse_seconds(cells[*col_seconds], line_no);
        std::string phase(kPhaseBoot);
        if (col_phase) {
            phase = std::string(cells[*col_phase]);
            if (!kCsvPhases.contains(phase))
                throw InputError(line_no, "phase " + in_quotes(phase) +
                                              " is not one of boot, alloc, zero, grow");
        }
        auto& series = by_phase[phase];
        series.phase = phase;
        series.points.push_back({static_cast<double>(threads), seconds});
        first_line_of.emplace(phase, line_no);
        last_line = line_no;
    }
    if (!have_header)
        throw InputError(1, "empty file; " + expected);
    if (by_phase.empty())
        throw InputError(header_line, "no data rows after the header");

    for (auto& [name, series] : by_phase)
        data.phases.push_back(std::move(series));
    // The table's own curve: a boot table when there is one, else the alloc phase.
    const PhaseSeries* main = data.phase(kPhaseBoot);
    if (main == nullptr)
        main = data.phase(kPhaseAlloc);
    if (main == nullptr)
        throw InputError(std::nullopt,
                         "no 'boot' or 'alloc' rows: nothing to base a boot time on; a table of "
                         "boot times needs no phase column");
    check_enough_thread_counts(*main, last_line);
    // Per-page costs are unknown in a table; every phase is taken as the same amount of work.
    if (main->phase == kPhaseAlloc)
        data.notes.push_back(
            "the table has no boot rows: predicting from its alloc rows as seconds for the same "
            "work at boot");
    return data;
}

}  // namespace hugetune::model
