#include "cli/boot_sweep_option.hpp"

#include "tuner/system/errors.hpp"
#include "tuner/system/json_file.hpp"

namespace hugetune::cli {

model::SweepData read_boot_sweep_option(const std::filesystem::path& file) {
    try {
        return model::parse_boot_sweep_json(read_json_file(file));
    } catch (const UsageError& e) {
        throw UsageError(std::string("--boot-sweep ") + e.what());
    } catch (const model::InputError& e) {
        throw UsageError("--boot-sweep " + file.string() + ": " + e.what());
    }
}

model::BootComparison boot_sweep_comparison(const std::filesystem::path& file,
                                            const model::SweepData& boots,
                                            const model::Recommendation& recommendation) {
    try {
        return model::compare_with_boots(recommendation, boots);
    } catch (const model::InputError& e) {
        throw UsageError("--boot-sweep " + file.string() + ": " + e.what());
    }
}

}  // namespace hugetune::cli
