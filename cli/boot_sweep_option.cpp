#include "cli/boot_sweep_option.hpp"

#include <nlohmann/json.hpp>

#include "model/errors.hpp"
#include "tuner/system/json_file.hpp"

namespace hugetune::cli {

model::SweepData read_boot_sweep_option(const std::filesystem::path& file) {
    nlohmann::json document;
    try {
        document = read_json_file(file);
    } catch (const UsageError& e) {
        throw UsageError("--boot-sweep " + e.message());
    }
    return model::parse_boot_sweep_json(document, {file.string(), "boot_sweep"});
}

}  // namespace hugetune::cli
