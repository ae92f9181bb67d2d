#include "cli/json_result.hpp"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"

namespace hugetune::cli {

namespace {

void print_result(nlohmann::json result, int code, const nlohmann::json& error) {
    result["exit_code"] = code;
    result["error"] = error;
    std::cout << result.dump(2) << "\n";
}

nlohmann::json error_object(const std::string& message) {
    return {{"message", message}};
}

nlohmann::json argv_list(const std::vector<boot::Argv>& commands) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& argv : commands)
        list.push_back(argv);
    return list;
}

}  // namespace

int with_json_result(const bool& json, const std::function<int()>& body,
                     const std::function<nlohmann::json()>& describe) {
    int code = 0;
    try {
        code = body();
    } catch (const std::exception&) {
        if (json) {
            const ErrorReport error = current_error();
            print_result(describe(), static_cast<int>(error.code), error_object(error.message));
        }
        throw;
    }
    if (json)
        print_result(describe(), code, nullptr);
    return code;
}

void add_json_result_option(boost::program_options::options_description& desc, bool& json) {
    desc.add_options()("json", boost::program_options::bool_switch(&json),
                       "print one JSON object on stdout: what was done and the exit code, also "
                       "on failure; the text goes to stderr");
}

nlohmann::json boot_outcome_json(std::string_view command, bool dry_run,
                                 const boot::BootOutcome& o) {
    nlohmann::json ran = nlohmann::json::array();
    for (const auto& argv : o.commands)
        if (o.written && std::find(o.not_run.begin(), o.not_run.end(), argv) == o.not_run.end())
            ran.push_back(argv);
    return {{"command", command},
            {"dry_run", dry_run},
            {"setting", o.setting.empty() ? nlohmann::json() : nlohmann::json(o.setting)},
            {"bootloader", o.bootloader.empty() ? nlohmann::json() : nlohmann::json(o.bootloader)},
            {"notes", o.notes},
            {"warnings", o.warnings},
            {"files", o.files},
            {"written", o.written},
            {"commands", argv_list(o.commands)},
            {"commands_run", ran},
            {"commands_not_run", argv_list(o.not_run)},
            {"next_boot_not_reached",
             o.not_reached ? nlohmann::json(*o.not_reached) : nlohmann::json()},
            {"ledger", o.ledger ? boot::ledger_to_json(*o.ledger) : nlohmann::json()}};
}

int print_boot_outcome(const boot::BootOutcome& outcome, bool json) {
    for (const auto& said : outcome.output)
        (said.diagnostic || json ? std::cerr : std::cout) << said.text;
    if (outcome.failure)
        std::rethrow_exception(outcome.failure);
    return 0;
}

}  // namespace hugetune::cli
