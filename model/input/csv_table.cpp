// Reads `threads_per_node,seconds[,phase,...]` tables.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "model/input/fit_input.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

// Fills `fields` (cleared first, its storage kept for the next row) with the trimmed cells.
void split_fields(std::string_view line, std::vector<std::string_view>& fields) {
    fields.clear();
    std::size_t start = 0;
    while (true) {
        const auto comma = line.find(',', start);
        fields.push_back(trim(line.substr(start, comma - start)));
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
}

std::string in_quotes(std::string_view s) {
    return "'" + printable_text(s) + "'";
}

// A line of the table with its 1-based number; blank lines are left out.
struct TextLine {
    int number = 0;
    std::string_view text;  // trimmed
    const InputSource* input = nullptr;
};

[[noreturn]] void refuse(const TextLine& line, const std::string& problem) {
    throw InputError(*line.input, line.number, problem);
}

int parse_threads(std::string_view cell, const TextLine& line) {
    long value = 0;
    const auto* end = cell.data() + cell.size();
    auto [ptr, ec] = std::from_chars(cell.data(), end, value);
    if (cell.empty() || ec != std::errc() || ptr != end) {
        double as_double = 0;
        auto [p2, ec2] = std::from_chars(cell.data(), end, as_double);
        if (!cell.empty() && ec2 == std::errc() && p2 == end)
            refuse(line,
                   "threads_per_node " + in_quotes(cell) + " is not a whole number of threads");
        refuse(line, "threads_per_node " + in_quotes(cell) + " is not a number");
    }
    if (value <= 0)
        refuse(line, "threads_per_node " + in_quotes(cell) + " must be at least 1");
    if (value > 1'000'000)
        refuse(line, "threads_per_node " + in_quotes(cell) + " is implausibly large");
    return static_cast<int>(value);
}

double parse_seconds(std::string_view cell, const TextLine& line) {
    double value = 0;
    const auto* end = cell.data() + cell.size();
    auto [ptr, ec] = std::from_chars(cell.data(), end, value);
    if (cell.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
        refuse(line, "seconds " + in_quotes(cell) + " is not a number");
    if (value <= 0)
        refuse(line, "seconds " + in_quotes(cell) + " must be above 0");
    return value;
}

// Every phase a table may name, in the order the series come out.
constexpr std::array<std::string_view, 4> kCsvPhases = {kPhaseAlloc, kPhaseBoot, kPhaseGrow,
                                                        kPhaseZero};
constexpr std::size_t kBootIndex = 1;
static_assert(kCsvPhases[kBootIndex] == kPhaseBoot);

const std::string kExpectedHeader = "expected a header line 'threads_per_node,seconds'";

// The non-blank lines of a text one at a time, without copying it.
class LineReader {
  public:
    LineReader(std::string_view text, const InputSource& input) : text_(text), input_(&input) {}

    std::optional<TextLine> next() {
        while (pos_ <= text_.size()) {
            const auto nl = text_.find('\n', pos_);
            const auto raw = text_.substr(pos_, nl == std::string_view::npos ? nl : nl - pos_);
            pos_ = nl == std::string_view::npos ? text_.size() + 1 : nl + 1;
            ++number_;
            if (const auto line = trim(raw); !line.empty())
                return TextLine{number_, line, input_};
        }
        return std::nullopt;
    }

  private:
    std::string_view text_;
    const InputSource* input_;
    std::size_t pos_ = 0;
    int number_ = 0;
};

// Where the columns are: any order, extra columns ignored.
struct CsvHeader {
    std::size_t threads = 0, seconds = 0;
    std::optional<std::size_t> phase;
    std::size_t columns = 0;
};

CsvHeader read_header(const TextLine& line) {
    std::optional<std::size_t> threads, seconds, phase;
    std::vector<std::string_view> names;
    split_fields(line.text, names);
    for (std::size_t i = 0; i < names.size(); ++i) {
        std::optional<std::size_t>* slot = names[i] == "threads_per_node" ? &threads
                                           : names[i] == "seconds"        ? &seconds
                                           : names[i] == "phase"          ? &phase
                                                                          : nullptr;
        if (slot == nullptr)
            continue;
        if (*slot)
            refuse(line, "column " + in_quotes(names[i]) + " appears twice");
        *slot = i;
    }
    if (!threads || !seconds) {
        const bool numeric = std::isdigit(static_cast<unsigned char>(line.text.front())) != 0;
        refuse(line, numeric
                         ? "missing header; " + kExpectedHeader
                         : "header " + in_quotes(line.text) +
                               " has no threads_per_node or seconds column; " + kExpectedHeader);
    }
    return {*threads, *seconds, phase, names.size()};
}

struct CsvRow {
    std::size_t phase = 0;  // index in kCsvPhases
    Point point;
};

std::size_t phase_index(std::string_view name, const TextLine& line) {
    const auto it = std::find(kCsvPhases.begin(), kCsvPhases.end(), name);
    if (it == kCsvPhases.end())
        refuse(line, "phase " + in_quotes(name) + " is not one of boot, alloc, zero, grow");
    return static_cast<std::size_t>(it - kCsvPhases.begin());
}

// `cells` is the caller's buffer, reused from row to row.
CsvRow read_row(const TextLine& line, const CsvHeader& header,
                std::vector<std::string_view>& cells) {
    split_fields(line.text, cells);
    if (cells.size() < header.columns)
        refuse(line, std::to_string(cells.size()) + " field(s) but the header has " +
                         std::to_string(header.columns));
    return {header.phase ? phase_index(cells[*header.phase], line) : kBootIndex,
            {static_cast<double>(parse_threads(cells[header.threads], line)),
             parse_seconds(cells[header.seconds], line)}};
}

// What makes a row the same measurement as another: its thread count and seconds as values
// ("22" and "22.0" are one), its phase, and the text of every other column, so a column such
// as `repetition` keeps repeated equal readings apart. Rows are compared by a 64-bit hash of
// that identity, so the check costs 16 bytes a row at the largest input (two different rows
// share a hash with a chance near 1e-8 in a million rows).
std::uint64_t row_identity(const CsvHeader& header, const CsvRow& row,
                           const std::vector<std::string_view>& cells, std::string& key) {
    key.assign(reinterpret_cast<const char*>(&row.point.threads_per_node),
               sizeof row.point.threads_per_node);
    key.append(reinterpret_cast<const char*>(&row.point.seconds), sizeof row.point.seconds);
    key += static_cast<char>(row.phase);
    for (std::size_t i = 0; i < cells.size(); ++i)
        if (i != header.threads && i != header.seconds && i != header.phase) {
            key += '\n';
            key.append(cells[i]);
        }
    return std::hash<std::string>{}(key);
}

// A row pasted twice would count twice in the fit and its bootstrap, pulling the curve towards
// it; yet equal readings are common in real repetitions (boot times move in the kernel's
// 4 ms steps), so repeats are kept and named, not refused. `rows` holds each row's identity
// hash and line.
std::optional<std::string> repeated_rows_note(std::vector<std::pair<std::uint64_t, int>>& rows) {
    std::sort(rows.begin(), rows.end());
    std::size_t repeats = 0;
    std::optional<std::pair<int, int>> first_repeat;  // (repeated line, its first line)
    for (std::size_t i = 1, first = 0; i < rows.size(); ++i) {
        if (rows[i].first != rows[i - 1].first) {
            first = i;
            continue;
        }
        ++repeats;
        if (!first_repeat || rows[i].second < first_repeat->first)
            first_repeat = std::pair{rows[i].second, rows[first].second};
    }
    if (!first_repeat)
        return std::nullopt;
    return std::to_string(repeats) + " row(s) repeat an earlier row exactly (the first: line " +
           std::to_string(first_repeat->first) + " repeats line " +
           std::to_string(first_repeat->second) +
           "); they count as repetitions of that measurement: delete them if they were pasted "
           "twice, or tell real repetitions apart with a column such as 'repetition'";
}

// The table's own curve: a boot table when there is one, else the alloc phase.
void check_main_series(SweepData& data, int last_line) {
    const PhaseSeries* main = data.phase(kPhaseBoot);
    if (main == nullptr)
        main = data.phase(kPhaseAlloc);
    if (main == nullptr)
        throw InputError(data.input, std::nullopt,
                         "no 'boot' or 'alloc' rows: nothing to base a boot time on; a table of "
                         "boot times needs no phase column");
    check_enough_thread_counts(*main, last_line, data.input);
    // Per-page costs are unknown in a table; every phase is taken as the same amount of work.
    if (main->phase == kPhaseAlloc)
        data.notes.push_back(
            "the table has no boot rows: predicting from its alloc rows as seconds for the same "
            "work at boot");
}

}  // namespace

SweepData parse_csv_table(std::string_view text, const InputSource& input) {
    LineReader lines(text, input);
    const auto first = lines.next();
    if (!first)
        throw InputError(input, 1, "empty file; " + kExpectedHeader);
    const CsvHeader header = read_header(*first);
    std::array<PhaseSeries, kCsvPhases.size()> by_phase;
    if (!header.phase)  // every row is one point of the boot table: no regrowing it row by row
        by_phase[kBootIndex].points.reserve(std::min<std::size_t>(
            kMaxInputSamples,
            static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'))));
    std::vector<std::string_view> cells;
    std::vector<std::pair<std::uint64_t, int>> identities;
    std::string identity_key;
    std::size_t rows = 0;
    int last_line = first->number;
    while (const auto line = lines.next()) {
        if (++rows > kMaxInputSamples)
            refuse(*line, "more than " + std::to_string(kMaxInputSamples) +
                              " data rows, the most hugetune reads; " +
                              std::string(kFewerSamplesFix));
        const CsvRow row = read_row(*line, header, cells);
        identities.emplace_back(row_identity(header, row, cells, identity_key), line->number);
        by_phase[row.phase].points.push_back(row.point);
        last_line = line->number;
    }
    if (rows == 0)
        refuse(*first, "no data rows after the header");
    SweepData data;
    data.source = "csv";
    data.input = input;
    if (auto note = repeated_rows_note(identities))
        data.notes.push_back(std::move(*note));
    for (std::size_t i = 0; i < kCsvPhases.size(); ++i)
        if (!by_phase[i].points.empty()) {
            by_phase[i].phase = std::string(kCsvPhases[i]);
            data.phases.push_back(std::move(by_phase[i]));
        }
    check_main_series(data, last_line);
    return data;
}

}  // namespace hugetune::model
