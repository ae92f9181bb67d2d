// Reads `threads_per_node,seconds[,phase,...]` tables.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
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
    return "'" + printable_text(s) + "'";
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

const std::string kExpectedHeader = "expected a header line 'threads_per_node,seconds'";

// A line of the table with its 1-based number; blank lines are left out.
struct TextLine {
    int number = 0;
    std::string_view text;  // trimmed
};

std::vector<TextLine> nonblank_lines(std::string_view text) {
    std::vector<TextLine> lines;
    int number = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const auto nl = text.find('\n', pos);
        const auto raw = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
        pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        ++number;
        if (const auto line = trim(raw); !line.empty())
            lines.push_back({number, line});
    }
    return lines;
}

// Where the columns are: any order, extra columns ignored.
struct CsvHeader {
    std::size_t threads = 0, seconds = 0;
    std::optional<std::size_t> phase;
    std::size_t columns = 0;
};

CsvHeader read_header(const TextLine& line) {
    std::optional<std::size_t> threads, seconds, phase;
    const auto names = split_fields(line.text);
    for (std::size_t i = 0; i < names.size(); ++i) {
        std::optional<std::size_t>* slot = names[i] == "threads_per_node" ? &threads
                                           : names[i] == "seconds"        ? &seconds
                                           : names[i] == "phase"          ? &phase
                                                                          : nullptr;
        if (slot == nullptr)
            continue;
        if (*slot)
            throw InputError(line.number, "column " + in_quotes(names[i]) + " appears twice");
        *slot = i;
    }
    if (!threads || !seconds) {
        const bool numeric = std::isdigit(static_cast<unsigned char>(line.text.front())) != 0;
        throw InputError(line.number, numeric ? "missing header; " + kExpectedHeader
                                              : "header " + in_quotes(line.text) +
                                                    " has no threads_per_node or seconds "
                                                    "column; " +
                                                    kExpectedHeader);
    }
    return {*threads, *seconds, phase, names.size()};
}

struct CsvRow {
    std::string phase;
    Point point;
};

CsvRow read_row(const TextLine& line, const CsvHeader& header) {
    const auto cells = split_fields(line.text);
    if (cells.size() < header.columns)
        throw InputError(line.number, std::to_string(cells.size()) +
                                          " field(s) but the header has " +
                                          std::to_string(header.columns));
    CsvRow row{std::string(kPhaseBoot),
               {static_cast<double>(parse_threads(cells[header.threads], line.number)),
                parse_seconds(cells[header.seconds], line.number)}};
    if (header.phase) {
        row.phase = std::string(cells[*header.phase]);
        if (!kCsvPhases.contains(row.phase))
            throw InputError(line.number, "phase " + in_quotes(row.phase) +
                                              " is not one of boot, alloc, zero, grow");
    }
    return row;
}

// What makes a row the same measurement as another: its numbers as values ("22" and "22.0" are
// one), its phase, and the text of every other column, so a column such as `repetition` keeps
// repeated equal readings apart.
std::string row_identity(const TextLine& line, const CsvHeader& header, const CsvRow& row) {
    char seconds[64];
    std::snprintf(seconds, sizeof seconds, "%a", row.point.seconds);
    std::string key =
        std::to_string(row.point.threads_per_node) + '\n' + seconds + '\n' + row.phase;
    const auto cells = split_fields(line.text);
    for (std::size_t i = 0; i < cells.size(); ++i)
        if (i != header.threads && i != header.seconds && i != header.phase)
            key += '\n' + std::string(cells[i]);
    return key;
}

// A row pasted twice would count twice in the fit and its bootstrap, pulling the curve towards
// it; equal readings of real repetitions are told apart by a column the reader ignores.
void check_not_repeated(std::map<std::string, int>& seen, const std::string& identity, int line) {
    const auto [first, inserted] = seen.emplace(identity, line);
    if (!inserted)
        throw InputError(line, "the same row as line " + std::to_string(first->second) +
                                   "; delete the copy, or tell equal repetitions apart with a "
                                   "column such as 'repetition'");
}

// The table's own curve: a boot table when there is one, else the alloc phase.
void check_main_series(SweepData& data, int last_line) {
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
}

}  // namespace

SweepData parse_csv_table(std::string_view text) {
    const auto lines = nonblank_lines(text);
    if (lines.empty())
        throw InputError(1, "empty file; " + kExpectedHeader);
    const CsvHeader header = read_header(lines.front());
    if (lines.size() == 1)
        throw InputError(lines.front().number, "no data rows after the header");
    std::map<std::string, PhaseSeries> by_phase;
    std::map<std::string, int> seen;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        CsvRow row = read_row(lines[i], header);
        check_not_repeated(seen, row_identity(lines[i], header, row), lines[i].number);
        auto& series = by_phase[row.phase];
        series.phase = std::move(row.phase);
        series.points.push_back(row.point);
    }
    SweepData data;
    data.source = "csv";
    for (auto& [name, series] : by_phase)
        data.phases.push_back(std::move(series));
    check_main_series(data, lines.back().number);
    return data;
}

}  // namespace hugetune::model
