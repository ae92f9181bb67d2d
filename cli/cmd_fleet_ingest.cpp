// `hugetune fleet ingest FILE...`: reports and boot records into the fleet database, each once,
// in one transaction; a document that cannot be stored is refused with its name and the reason.
// A file named *.jsonl holds boot records, one a line (docs/fleet.md "Boots at fleet size").
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <type_traits>
#include <variant>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "model/documents/boot_record.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/system/json_file.hpp"

namespace hugetune::cli {
namespace {

namespace fs = std::filesystem;

struct IngestOptions {
    std::string db;
    std::vector<std::string> inputs;
    bool json = false;
};

std::optional<IngestOptions> parse_ingest(const Args& args) {
    IngestOptions o;
    po::options_description desc("Options");
    add_db_option(desc, o.db);
    desc.add_options()("json", po::bool_switch(&o.json),
                       "print what was added, skipped and refused as one JSON object");
    po::options_description hidden;
    hidden.add_options()("input", po::value(&o.inputs));
    po::positional_options_description positional;
    positional.add("input", -1);
    po::variables_map vm;
    if (!parse_options("fleet ingest",
                       "hugetune fleet ingest FILE|DIR|-... [--db PATH|URL] [--json]", desc, args,
                       vm, &positional, &hidden))
        return std::nullopt;
    if (o.inputs.empty())
        throw UsageError(
            "fleet ingest: give report or boot record files, JSON Lines files of boot records "
            "(*.jsonl), directories of them, or - for stdin");
    if (std::count(o.inputs.begin(), o.inputs.end(), "-") > 1)
        throw UsageError("fleet ingest: '-' (stdin) may be given once");
    return o;
}

bool is_lines_file(const fs::path& path) {
    return path.extension() == ".jsonl";
}

struct Refusal {
    std::string name, reason;
    std::string lines_of =
        {};  // the JSON Lines input of a refused line, empty for a whole document
};

// The refusals, each listed, but of a JSON Lines input's lines only the first few: a file of a
// million bad lines is said in a few lines, and not held.
struct Refusals {
    static constexpr std::size_t kListedPerFile = 20;
    std::vector<Refusal> listed;
    std::size_t count = 0;
    std::map<std::string, std::size_t> lines_of_file;

    // Names and reasons hold what the input held (a file's name, a record's host): made
    // printable here, once, they are safe on a terminal and valid UTF-8 in --json's output.
    void add(Refusal r) {
        ++count;
        if (!r.lines_of.empty() && ++lines_of_file[r.lines_of] > kListedPerFile)
            return;
        r.name = printable_text(r.name);
        r.reason = printable_text(r.reason);
        listed.push_back(std::move(r));
    }
};

struct Input {
    std::string name;  // as given; "<stdin>" for `-`
    bool from_stdin = false;
    // Not read at all: a FIFO, a device or a socket could block the ingest, which holds the
    // database's ingest lock, for as long as its writer likes.
    std::optional<std::string> refusal;
    // JSON Lines of boot records, one record a line: a file whose name ends in .jsonl, or
    // standard input whose first line is a whole boot record.
    bool lines = false;
    std::string head = {};  // of standard input: its first bytes, read to tell which it holds
};

// Standard input up to the end of its first line that is not blank, or up to a record line's
// bound: enough to tell JSON Lines of boot records from one document without holding either.
std::string read_stdin_head() {
    std::string head;
    std::streambuf* buf = std::cin.rdbuf();
    std::size_t line_start = 0;
    while (head.size() <= model::kMaxBootRecordLineBytes) {
        const int c = buf->sbumpc();
        if (c == std::char_traits<char>::eof())
            break;
        head.push_back(static_cast<char>(c));
        if (c != '\n')
            continue;
        if (head.find_first_not_of(" \t\r\n", line_start) != std::string::npos)
            break;
        line_start = head.size();
    }
    return head;
}

// Standard input as an input: JSON Lines when its first line that is not blank is a whole boot
// record by itself (a document that spans lines, or a report, is not), else one document.
Input stdin_input() {
    Input in{"<stdin>", true, std::nullopt};
    in.head = read_stdin_head();
    const auto start = in.head.find_first_not_of(" \t\r\n");
    in.lines = start != std::string::npos &&
               fleet_db::is_boot_record_line(std::string_view(in.head).substr(start));
    return in;
}

// Why a named input is not read, or nothing for a regular file (or one that is not there,
// which the read then refuses as unreadable).
std::optional<std::string> not_a_file(const std::string& name) {
    std::error_code ec;
    const auto status = fs::status(name, ec);
    if (ec || !fs::exists(status) || fs::is_regular_file(status))
        return std::nullopt;
    return std::string(fs::is_fifo(status) ? "a FIFO" : "not a regular file") +
           ", which could keep the ingest waiting while it holds the database; save the report "
           "to a file, or give it on stdin with -";
}

// Files as given, a directory's *.json and *.jsonl files in name order, `-` as "<stdin>".
// Names only: each is read when its turn comes.
std::vector<Input> gather_inputs(const std::vector<std::string>& inputs) {
    std::vector<Input> out;
    for (const auto& input : inputs) {
        std::error_code ec;
        if (input == "-") {
            out.push_back(stdin_input());
        } else if (fs::is_directory(input, ec)) {
            std::vector<fs::path> files;
            for (const auto& entry : fs::directory_iterator(input, ec))
                if ((entry.path().extension() == ".json" || is_lines_file(entry.path())) &&
                    entry.is_regular_file(ec))
                    files.push_back(entry.path());
            std::sort(files.begin(), files.end());
            for (auto& f : files)
                out.push_back({f.string(), false, std::nullopt, is_lines_file(f)});
        } else {
            out.push_back({input, false, not_a_file(input), is_lines_file(input)});
        }
    }
    return out;
}

std::optional<std::string> read_input(const Input& input) {
    if (!input.from_stdin)
        return read_document_file(input.name);
    auto rest = read_document_bytes(std::cin);
    if (!rest)
        return std::nullopt;
    return input.head + *rest;
}

using Checked = std::variant<fleet_db::IntakeReport, fleet_db::IntakeBoot, std::string>;

// Runs `read` on the document `name`: the report or boot record checked, or its refusal's
// reason.
template <typename Read>
Checked intake(const std::string& name, Read&& read) {
    try {
        auto document = read();
        if constexpr (std::is_same_v<decltype(document), fleet_db::IntakeBoot>) {
            return document;
        } else {
            if (auto* report = std::get_if<fleet_db::IntakeReport>(&document))
                return std::move(*report);
            return std::move(std::get<fleet_db::IntakeBoot>(document));
        }
    } catch (const std::exception&) {
        // A report the checks refuse (fleet_db::FleetDbError "NAME: reason") or the fleet model
        // cannot fit (model::InputError about `name`) is refused, not the batch.
        const ErrorReport error = current_error();
        if (!error.typed || error.code != ExitCode::usage)
            throw;
        return error.message.substr(name.size() + 2);
    }
}

// A piece of work: a whole input, or some lines of a JSON Lines file.
struct Unit {
    std::size_t input = 0;
    std::size_t first_line = 0;         // of `lines`; 0 for a whole input
    std::string lines;                  // whole lines, each ending in '\n'
    std::vector<std::size_t> too_long;  // lines left unread (kMaxBootRecordLineBytes)
};

// One document read and checked: what to store, or why it is refused under `name` (the file,
// or "FILE:LINE" for a line).
struct Item {
    std::string name;
    Checked checked;
    std::string lines_of = {};  // as Refusal's
};

// A unit's documents, in order.
struct Prepared {
    std::vector<Item> items;
};

Prepared prepare_lines(const Input& input, Unit& unit) {
    Prepared out;
    std::size_t line = unit.first_line, at = 0;
    std::size_t skipped = 0;
    while (at < unit.lines.size() || skipped < unit.too_long.size()) {
        if (skipped < unit.too_long.size() && unit.too_long[skipped] == line) {
            out.items.push_back({input.name + ":" + std::to_string(line),
                                 "longer than " + std::to_string(model::kMaxBootRecordLineBytes) +
                                     " bytes, which no boot record is; give one record a line",
                                 input.name});
            ++skipped;
            ++line;
            continue;
        }
        const std::size_t end = unit.lines.find('\n', at);
        std::string text = unit.lines.substr(at, end - at);
        at = end + 1;
        const std::size_t this_line = line++;
        if (text.find_first_not_of(" \t\r") == std::string::npos)
            continue;  // a blank line holds no record
        const std::string name = input.name + ":" + std::to_string(this_line);
        Checked checked = intake(name, [&] {
            auto boot = fleet_db::read_intake_boot(name, std::move(text), unix_now_seconds());
            boot.name = input.name;
            boot.line = this_line;
            return boot;
        });
        out.items.push_back({name, std::move(checked), input.name});
    }
    return out;
}

Prepared prepare(const Input& input, Unit& unit) {
    if (input.refusal)
        return {{{input.name, *input.refusal}}};
    if (input.lines)
        return prepare_lines(input, unit);
    auto bytes = read_input(input);
    if (!bytes)
        return {{{input.name, std::string("cannot be read")}}};
    // Moved in: a vector made from a braced list would copy the report.
    Prepared out;
    out.items.push_back({input.name, intake(input.name, [&] {
                             return fleet_db::read_intake_document(input.name, std::move(*bytes),
                                                                   unix_now_seconds());
                         })});
    return out;
}

// Lines of a JSON Lines file or of standard input, read a unit at a time as preparers ask for
// work.
class LinesReader {
  public:
    // A unit of the next lines, or nothing at the input's end.
    std::optional<Unit> next(std::size_t input_index, const Input& input) {
        if (!in_) {
            if (input.from_stdin) {
                in_ = &std::cin;
                pending_ = input.head;
            } else {
                file_.emplace(input.name, std::ios::binary);
                in_ = &*file_;
            }
            pending_at_ = 0;
            line_ = 1;
            open_failed_ = !*in_;
        }
        if (open_failed_)
            return std::nullopt;
        Unit unit;
        unit.input = input_index;
        unit.first_line = line_;
        std::string line;
        while (unit.lines.size() < kUnitBytes && read_line(line)) {
            if (line.size() > model::kMaxBootRecordLineBytes)
                unit.too_long.push_back(line_);
            else
                unit.lines.append(line).push_back('\n');
            ++line_;
        }
        if (unit.lines.empty() && unit.too_long.empty())
            return std::nullopt;
        return unit;
    }
    bool unreadable() const { return open_failed_ || (in_ && in_->bad()); }
    void close() {
        in_ = nullptr;
        file_.reset();
        pending_.clear();
    }

  private:
    // About a thousand records: few enough to hold several units at once, many enough that
    // handing them out costs nothing.
    static constexpr std::size_t kUnitBytes = 1 << 20;

    // One line without its '\n'; of a line longer than any record, only its first bytes
    // beyond the bound are held, the rest is skipped.
    bool read_line(std::string& line) {
        line.clear();
        std::streambuf* buf = in_->rdbuf();
        for (;;) {
            const int c = pending_at_ < pending_.size()
                              ? static_cast<unsigned char>(pending_[pending_at_++])
                              : buf->sbumpc();
            if (c == std::char_traits<char>::eof())
                return !line.empty();
            if (c == '\n')
                return true;
            if (line.size() <= model::kMaxBootRecordLineBytes)
                line.push_back(static_cast<char>(c));
        }
    }

    std::optional<std::ifstream> file_;
    std::istream* in_ = nullptr;
    std::string pending_;  // read before the stream's bytes: standard input's head
    std::size_t pending_at_ = 0;
    std::size_t line_ = 1;
    bool open_failed_ = false;
};

// Reading and checking a report (parsing, the reader's bounds, the schema, the canonical text
// and its hash) is most of an ingest's time and needs nothing of the others, so a few threads
// prepare the units (a whole input, or a part of a JSON Lines file) ahead of the one being
// stored, which are stored in the order given. At most kWindowUnits units, and kWindowBytes of
// what they hold in memory (bytes_of), are held ready at once: memory stays bounded by those and
// the units being prepared, not by the batch. The window holds most of one of PostgreSQL's groups
// of reports (ingest_batch.cpp kRunCopyRows), so the preparing goes on while the storing thread
// sends a group and waits for the server. An error that is not a refusal is handed to the storing
// thread at its unit's turn.
class Preparers {
  public:
    static constexpr std::size_t kWindowUnits = 512;
    // Reports, counted twice over, may reach the bytes before the units; they ingested as fast
    // as with 64 MB (docs/measurements/fleet-ingest-ab-2026-12-06-window.txt). A unit of boot
    // records, a megabyte of lines, counts several megabytes: with 32 MB an ingest of 1,000,000
    // or 2,000,000 records peaked at 67 to 79 MB, with 64 MB at 95 to 108 MB
    // (docs/measurements/boot-ingest-memory-2026-12-06.txt).
    static constexpr std::size_t kWindowBytes = std::size_t{32} << 20;

    explicit Preparers(const std::vector<Input>& inputs) : inputs_(inputs), slots_(window_) {
        const auto threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
        for (std::size_t t = 0; t < threads; ++t)
            threads_.emplace_back([this] { work(); });
    }
    Preparers(const Preparers&) = delete;
    Preparers& operator=(const Preparers&) = delete;
    ~Preparers() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        for (auto& t : threads_)
            t.join();
    }

    // The unit at `i`, which must be the one after the last taken; nothing after the last.
    std::optional<Prepared> take(std::size_t i) {
        std::unique_lock lock(mutex_);
        auto& slot = slots_[i % window_];
        changed_.wait(lock, [&] { return slot.has_value() || (done_ && i >= claimed_); });
        if (!slot)
            return std::nullopt;
        Slot done = std::move(*slot);
        slot.reset();
        taken_ = i + 1;
        held_bytes_ -= done.bytes;
        lock.unlock();
        changed_.notify_all();
        if (done.error)
            std::rethrow_exception(done.error);
        return std::move(done.prepared);
    }

  private:
    struct Slot {
        Prepared prepared;
        std::exception_ptr error;
        std::size_t bytes = 0;  // what it holds in memory (bytes_of)
    };

    // What a prepared unit holds in memory: its items as laid out, their names, and each
    // document twice over, since the typed values read from it (a report's facts, a record's
    // fields and key) are the document's own values and hold at most its length again.
    // Counting the documents alone, a window of boot records held five to six times its bound
    // (docs/measurements/boot-ingest-memory-2026-12-06-window-64-stopped.txt).
    static std::size_t bytes_of(const Prepared& prepared) {
        std::size_t bytes = prepared.items.capacity() * sizeof(Item);
        for (const auto& item : prepared.items) {
            bytes += item.name.capacity() + item.lines_of.capacity();
            if (const auto* r = std::get_if<fleet_db::IntakeReport>(&item.checked))
                bytes += r->name.capacity() + 2 * r->stored_bytes() + r->content_hash.capacity();
            else if (const auto* b = std::get_if<fleet_db::IntakeBoot>(&item.checked))
                bytes += b->name.capacity() + 2 * b->document.capacity() + b->boot_key.capacity();
            else if (const auto* reason = std::get_if<std::string>(&item.checked))
                bytes += reason->capacity();
        }
        return bytes;
    }

    // The next unit, under the lock; nothing when every input is handed out.
    std::optional<Unit> next_unit() {
        while (next_input_ < inputs_.size()) {
            const Input& input = inputs_[next_input_];
            if (!input.lines || input.refusal)
                return Unit{next_input_++, 0, {}, {}};
            if (auto unit = lines_.next(next_input_, input))
                return unit;
            const bool unreadable = lines_.unreadable();
            lines_.close();
            if (unreadable) {  // refused as a whole
                Unit unit{next_input_++, 0, {}, {}};
                unreadable_.insert(unit.input);
                return unit;
            }
            ++next_input_;
        }
        return std::nullopt;
    }

    void work() {
        for (;;) {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [&] {
                return stop_ || done_ ||
                       (claimed_ < taken_ + window_ && held_bytes_ < kWindowBytes);
            });
            if (stop_ || done_)
                return;
            std::optional<Unit> unit;
            unit = next_unit();
            if (!unit) {
                done_ = true;
                lock.unlock();
                changed_.notify_all();
                return;
            }
            const std::size_t i = claimed_++;
            const bool unreadable = unreadable_.contains(unit->input);
            lock.unlock();
            Slot done;
            try {
                const Input& input = inputs_[unit->input];
                done.prepared = unreadable ? Prepared{{{input.name, std::string("cannot be read")}}}
                                           : prepare(input, *unit);
            } catch (...) {
                done.error = std::current_exception();
            }
            done.bytes = bytes_of(done.prepared);
            lock.lock();
            held_bytes_ += done.bytes;
            slots_[i % window_] = std::move(done);
            lock.unlock();
            changed_.notify_all();
        }
    }

    const std::vector<Input>& inputs_;
    const std::size_t window_ = kWindowUnits;
    std::vector<std::optional<Slot>> slots_;
    std::size_t held_bytes_ = 0;  // of the units prepared and not yet taken
    std::mutex mutex_;
    std::condition_variable changed_;
    std::size_t claimed_ = 0, taken_ = 0, next_input_ = 0;
    bool stop_ = false, done_ = false;
    LinesReader lines_;
    std::set<std::size_t> unreadable_;
    std::vector<std::thread> threads_;
};

nlohmann::json summary_json(const std::string& db, const fleet_db::IngestResult& r,
                            const Refusals& refused) {
    nlohmann::json j = {{"database", printable_text(db)},
                        {"added", r.added},
                        {"verification_added", r.verification_added},
                        {"skipped", r.skipped},
                        {"conflicts", r.conflicts},
                        {"boots_added", r.boots_added},
                        {"boots_skipped", r.boots_skipped},
                        {"boot_lines", nlohmann::json::array()},
                        {"refused", nlohmann::json::array()},
                        {"refused_count", refused.count}};
    for (const auto& f : r.boot_lines)
        j["boot_lines"].push_back({{"file", printable_text(f.file)},
                                   {"added", f.added},
                                   {"stored_before", f.stored_before}});
    for (const auto& x : refused.listed)
        j["refused"].push_back({{"file", x.name}, {"reason", x.reason}});
    return j;
}

}  // namespace

int run_fleet_ingest(const Args& args) {
    const auto o = parse_ingest(args);
    if (!o)
        return 0;
    const auto target = fleet_db_target(o->db);
    auto db = fleet_db::FleetDb::open(target, true);
    // At most 512 prepared units or 32 MB of what they hold in memory at a time
    // (Preparers), besides PostgreSQL's group being sent: read, checked, stored in turn, let go.
    // The batch's transaction stores all of them or none.
    // The inputs are named and judged (a FIFO is never read) before the ingest lock is taken.
    const auto inputs = gather_inputs(o->inputs);
    auto batch = db.begin_ingest();
    Refusals refused;
    std::size_t accepted = 0;
    {
        Preparers preparers(inputs);
        for (std::size_t at = 0;; ++at) {
            auto prepared = preparers.take(at);
            if (!prepared)
                break;
            for (auto& item : prepared->items) {
                if (auto* reason = std::get_if<std::string>(&item.checked)) {
                    refused.add({std::move(item.name), std::move(*reason), item.lines_of});
                    continue;
                }
                if (auto* boot = std::get_if<fleet_db::IntakeBoot>(&item.checked))
                    batch.store(*boot);
                else
                    batch.store(std::move(std::get<fleet_db::IntakeReport>(item.checked)));
                ++accepted;
            }
        }
    }
    const auto result = batch.commit();
    for (const auto& name : result.conflicts)
        refused.add({name,
                     "conflict: its host already has another report with the same "
                     "generated_at, which stays; one run per host and time (write "
                     "the report again for a new run)"});
    accepted -= result.conflicts.size();
    std::size_t boots_added = result.boots_added.size(),
                boots_skipped = result.boots_skipped.size();
    for (const auto& f : result.boot_lines) {
        boots_added += static_cast<std::size_t>(f.added);
        boots_skipped += static_cast<std::size_t>(f.stored_before);
    }
    if (o->json) {
        std::cout << summary_json(target.display, result, refused).dump(2) << "\n";
    } else {
        std::cout << "added " << result.added.size() << ", verification added "
                  << result.verification_added.size() << ", already stored "
                  << result.skipped.size() << ", refused " << refused.count;
        if (boots_added + boots_skipped > 0)
            std::cout << ", boots added " << boots_added << ", boots already stored "
                      << boots_skipped;
        std::cout << " (" << printable_text(target.display) << ")\n";
    }
    for (const auto& x : refused.listed)
        print_diagnostic("warning", "refused " + x.name + ": " + x.reason);
    if (refused.count > refused.listed.size())
        print_diagnostic(
            "warning", "refused " + std::to_string(refused.count - refused.listed.size()) +
                           " more lines, not listed (" + std::to_string(Refusals::kListedPerFile) +
                           " are listed of each file)");
    if (refused.count > 0)
        throw UsageError("fleet ingest: refused " + std::to_string(refused.count) + " of " +
                         count_text(refused.count + accepted,
                                    std::none_of(inputs.begin(), inputs.end(),
                                                 [](const Input& i) { return i.lines; }) &&
                                            boots_added + boots_skipped == 0
                                        ? "report"
                                        : "document") +
                         " (listed above), nothing of them stored; the others are "
                         "stored");
    return 0;
}

}  // namespace hugetune::cli
