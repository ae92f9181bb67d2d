// The measurement options shared by `hugetune sweep` and `hugetune run`, the checks every
// measuring command makes before it changes anything, and the console progress of a sweep.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cli/cli.hpp"
#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/sweep/sweep.hpp"

namespace hugetune::cli {

// Raw values as typed. Only those given are read by sweep_options_from(); the others keep
// SweepOptions' defaults (tuner/sweep/settings.hpp), so no default is written here.
struct SweepOptionValues {
    std::string threads;
    std::string phases;
    std::string page_size;
    int repetitions = 0;
    std::string budget;
    long long sample_mib = 0;
    double max_memory_fraction = 0;
    std::string seed;
    bool no_hvo_pass = false;
    std::string placement;
};

// Adds the "Sweep options" group, its help stating the defaults and ranges of settings.hpp.
void add_sweep_options(po::options_description& desc, SweepOptionValues& values);

// Parses the values given and refuses what plan_sweep would refuse, with the same message
// (validate_sweep_options): UsageError or SettingError naming the option.
SweepOptions sweep_options_from(const SweepOptionValues& values, const po::variables_map& vm);

// Root and hugetlb support, checked before anything changes (exit codes 3 and 4).
void require_root_and_hugetlb(const KernelFs& fs, const std::string& what);

// Rewrites `out` (when given) after every repetition and draws a progress line on stderr when
// it is a terminal.
class ConsoleProgress : public ProgressSink {
  public:
    explicit ConsoleProgress(std::optional<std::filesystem::path> out);
    ~ConsoleProgress() override;
    ConsoleProgress(const ConsoleProgress&) = delete;
    ConsoleProgress& operator=(const ConsoleProgress&) = delete;

    void on_repetition(const SweepProgress& p, const SweepResult& so_far) override;
    void on_note(const std::string& note) override;
    void clear();

  private:
    std::optional<std::filesystem::path> out_;
    bool tty_;
    bool drawn_ = false;
};

}  // namespace hugetune::cli
