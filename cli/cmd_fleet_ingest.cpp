// `hugetune fleet ingest FILE...`: reports into the fleet database, each once, in one
// transaction; a report that cannot be stored is refused with its name and the reason.
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
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
            "fleet ingest: give report or boot record files, directories of them, or - for stdin");
    if (std::count(o.inputs.begin(), o.inputs.end(), "-") > 1)
        throw UsageError("fleet ingest: '-' (stdin) may be given once");
    return o;
}

struct Refusal {
    std::string name, reason;
};

struct Input {
    std::string name;  // as given; "<stdin>" for `-`
    bool from_stdin = false;
    // Not read at all: a FIFO, a device or a socket could block the ingest, which holds the
    // database's ingest lock, for as long as its writer likes.
    std::optional<std::string> refusal;
};

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

// Files as given, a directory's *.json files in name order, `-` as "<stdin>". Names only: each
// is read when its turn comes.
std::vector<Input> gather_inputs(const std::vector<std::string>& inputs) {
    std::vector<Input> out;
    for (const auto& input : inputs) {
        std::error_code ec;
        if (input == "-") {
            out.push_back({"<stdin>", true, std::nullopt});
        } else if (fs::is_directory(input, ec)) {
            std::vector<std::string> files;
            for (const auto& entry : fs::directory_iterator(input, ec))
                if (entry.path().extension() == ".json" && entry.is_regular_file(ec))
                    files.push_back(entry.path().string());
            std::sort(files.begin(), files.end());
            for (auto& f : files)
                out.push_back({std::move(f), false, std::nullopt});
        } else {
            out.push_back({input, false, not_a_file(input)});
        }
    }
    return out;
}

std::optional<std::string> read_input(const Input& input) {
    if (input.from_stdin)
        return read_document_bytes(std::cin);
    std::ifstream in(input.name, std::ios::binary);
    std::error_code ec;
    const auto size = fs::file_size(input.name, ec);
    return in ? read_document_bytes(in, ec ? 0 : size) : std::nullopt;
}

using Checked = std::variant<fleet_db::IntakeReport, fleet_db::IntakeBoot, std::string>;

// The report or boot record checked, or its refusal's reason.
Checked intake(const std::string& name, std::string bytes) {
    try {
        auto document = fleet_db::read_intake_document(name, std::move(bytes), unix_now_seconds());
        if (auto* report = std::get_if<fleet_db::IntakeReport>(&document))
            return std::move(*report);
        return std::move(std::get<fleet_db::IntakeBoot>(document));
    } catch (const std::exception&) {
        // A report the checks refuse (fleet_db::FleetDbError "NAME: reason") or the fleet model
        // cannot fit (model::InputError about `name`) is refused, not the batch.
        const ErrorReport error = current_error();
        if (!error.typed || error.code != ExitCode::usage)
            throw;
        return error.message.substr(name.size() + 2);
    }
}

// One input read and checked: the report to store, or why it is refused.
struct Prepared {
    Checked checked;
};

Prepared prepare(const Input& input) {
    if (input.refusal)
        return {*input.refusal};
    auto bytes = read_input(input);
    if (!bytes)
        return {std::string("cannot be read")};
    return {intake(input.name, std::move(*bytes))};
}

// Reading and checking a report (parsing, the reader's bounds, the schema, the canonical text
// and its hash) is most of an ingest's time and needs nothing of the others, so a few threads
// prepare the reports ahead of the one being stored, which are stored in the order given. At
// most `window` reports are held at once: memory stays bounded by a few reports, not by the
// batch. An error that is not a refusal is handed to the storing thread at its report's turn.
class Preparers {
  public:
    explicit Preparers(const std::vector<Input>& inputs)
        : inputs_(inputs),
          window_(2 * std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8)),
          slots_(window_) {
        const std::size_t threads = std::min(window_ / 2, inputs.size());
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

    // The report at `i`, which must be the one after the last taken.
    Prepared take(std::size_t i) {
        std::unique_lock lock(mutex_);
        auto& slot = slots_[i % window_];
        changed_.wait(lock, [&] { return slot.has_value(); });
        Slot done = std::move(*slot);
        slot.reset();
        taken_ = i + 1;
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
    };

    void work() {
        for (;;) {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [&] {
                return stop_ || (claimed_ < inputs_.size() && claimed_ < taken_ + window_);
            });
            if (stop_)
                return;
            const std::size_t i = claimed_++;
            lock.unlock();
            Slot done;
            try {
                done.prepared = prepare(inputs_[i]);
            } catch (...) {
                done.error = std::current_exception();
            }
            lock.lock();
            slots_[i % window_] = std::move(done);
            lock.unlock();
            changed_.notify_all();
        }
    }

    const std::vector<Input>& inputs_;
    const std::size_t window_;
    std::vector<std::optional<Slot>> slots_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::size_t claimed_ = 0, taken_ = 0;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

nlohmann::json summary_json(const std::string& db, const fleet_db::IngestResult& r,
                            const std::vector<Refusal>& refused) {
    nlohmann::json j = {{"database", db},
                        {"added", r.added},
                        {"verification_added", r.verification_added},
                        {"skipped", r.skipped},
                        {"conflicts", r.conflicts},
                        {"boots_added", r.boots_added},
                        {"boots_skipped", r.boots_skipped},
                        {"refused", nlohmann::json::array()}};
    for (const auto& x : refused)
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
    // A few reports in memory at a time (Preparers): read, checked, stored in turn, let go.
    // The batch's transaction stores all of them or none.
    // The inputs are named and judged (a FIFO is never read) before the ingest lock is taken.
    const auto inputs = gather_inputs(o->inputs);
    auto batch = db.begin_ingest();
    std::vector<Refusal> refused;
    std::size_t accepted = 0;
    Preparers preparers(inputs);
    for (std::size_t at = 0; at < inputs.size(); ++at) {
        Prepared prepared = preparers.take(at);
        if (auto* reason = std::get_if<std::string>(&prepared.checked)) {
            refused.push_back({inputs[at].name, std::move(*reason)});
            continue;
        }
        if (auto* boot = std::get_if<fleet_db::IntakeBoot>(&prepared.checked))
            batch.store(*boot);
        else
            batch.store(std::move(std::get<fleet_db::IntakeReport>(prepared.checked)));
        ++accepted;
    }
    const auto result = batch.commit();
    for (const auto& name : result.conflicts)
        refused.push_back({name,
                           "conflict: its host already has another report with the same "
                           "generated_at, which stays; one run per host and time (write "
                           "the report again for a new run)"});
    accepted -= result.conflicts.size();
    if (o->json) {
        std::cout << summary_json(target.display, result, refused).dump(2) << "\n";
    } else {
        std::cout << "added " << result.added.size() << ", verification added "
                  << result.verification_added.size() << ", already stored "
                  << result.skipped.size() << ", refused " << refused.size();
        if (!result.boots_added.empty() || !result.boots_skipped.empty())
            std::cout << ", boots added " << result.boots_added.size() << ", boots already stored "
                      << result.boots_skipped.size();
        std::cout << " (" << printable_text(target.display) << ")\n";
    }
    for (const auto& x : refused)
        print_diagnostic("warning", "refused " + x.name + ": " + x.reason);
    if (!refused.empty())
        throw UsageError("fleet ingest: refused " + std::to_string(refused.size()) + " of " +
                         count_text(refused.size() + accepted, "report") +
                         " (listed above), nothing of them stored; the others are "
                         "stored");
    return 0;
}

}  // namespace hugetune::cli
