// `hugetune fleet ingest FILE...`: reports into the fleet database, each once, in one
// transaction; a report that cannot be stored is refused with its name and the reason.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "fleet_db/fleet_db_error.hpp"
#include "model/text.hpp"
#include "tuner/system/errors.hpp"

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
        throw UsageError("fleet ingest: give report files, directories of them, or - for stdin");
    if (std::count(o.inputs.begin(), o.inputs.end(), "-") > 1)
        throw UsageError("fleet ingest: '-' (stdin) may be given once");
    return o;
}

struct Refusal {
    std::string name, reason;
};

std::optional<std::string> read_bytes(std::istream& in) {
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad())
        return std::nullopt;
    return s.str();
}

// Files as given, a directory's *.json files in name order, `-` as "<stdin>".
std::vector<std::pair<std::string, std::optional<std::string>>> gather_inputs(
    const std::vector<std::string>& inputs) {
    std::vector<std::pair<std::string, std::optional<std::string>>> out;
    auto add_file = [&](const std::string& name) {
        std::ifstream in(name, std::ios::binary);
        out.emplace_back(name, in ? read_bytes(in) : std::nullopt);
    };
    for (const auto& input : inputs) {
        std::error_code ec;
        if (input == "-") {
            out.emplace_back("<stdin>", read_bytes(std::cin));
        } else if (fs::is_directory(input, ec)) {
            std::vector<std::string> files;
            for (const auto& entry : fs::directory_iterator(input, ec))
                if (entry.path().extension() == ".json" && entry.is_regular_file(ec))
                    files.push_back(entry.path().string());
            std::sort(files.begin(), files.end());
            for (const auto& f : files)
                add_file(f);
        } else {
            add_file(input);
        }
    }
    return out;
}

nlohmann::json summary_json(const std::string& db, const fleet_db::IngestResult& r,
                            const std::vector<Refusal>& refused) {
    nlohmann::json j = {{"database", db},
                        {"added", r.added},
                        {"verification_added", r.verification_added},
                        {"skipped", r.skipped},
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
    auto db = open_fleet_db(target, true);
    std::vector<fleet_db::IntakeReport> reports;
    std::vector<Refusal> refused;
    for (const auto& [name, bytes] : gather_inputs(o->inputs)) {
        if (!bytes) {
            refused.push_back({name, "cannot be read"});
            continue;
        }
        try {
            reports.push_back(fleet_db::read_intake_report(name, *bytes));
        } catch (const fleet_db::FleetDbError& e) {
            refused.push_back({name, std::string(e.what()).substr(name.size() + 2)});
        } catch (const std::exception&) {
            // A report the fleet model cannot fit (model::InputError about `name`) is refused
            // like one the checks above refuse.
            const ErrorReport error = current_error();
            if (!error.typed || error.code != ExitCode::usage)
                throw;
            refused.push_back({name, error.message.substr(name.size() + 2)});
        }
    }
    const auto result = fleet_db_call([&] { return db.ingest(reports); });
    if (o->json) {
        std::cout << summary_json(target.display, result, refused).dump(2) << "\n";
    } else {
        std::cout << "added " << result.added.size() << ", verification added "
                  << result.verification_added.size() << ", already stored "
                  << result.skipped.size() << ", refused " << refused.size() << " ("
                  << printable_text(target.display) << ")\n";
    }
    for (const auto& x : refused)
        print_diagnostic("warning", "refused " + x.name + ": " + x.reason);
    if (!refused.empty())
        throw UsageError("fleet ingest: refused " + std::to_string(refused.size()) + " of " +
                         std::to_string(refused.size() + reports.size()) +
                         " reports (listed above), nothing of them stored; the others are "
                         "stored");
    return 0;
}

}  // namespace hugetune::cli
