// The sweep options of `sweep` and `run`: defaults from tuner/sweep/settings.hpp when not given,
// help stating those defaults and ranges, and refusals the same as plan_sweep's.
#include <doctest/doctest.h>

#include <cctype>
#include <sstream>
#include <string>

#include "cli/sweep_options.hpp"
#include "model/errors.hpp"
#include "tuner/sweep/settings.hpp"

using namespace hugetune;
using namespace hugetune::cli;

namespace {

SweepOptions parse(const std::vector<std::string>& args) {
    SweepOptionValues values;
    po::options_description desc;
    add_sweep_options(desc, values);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
    return sweep_options_from(values, vm);
}

std::string help_text() {
    SweepOptionValues values;
    po::options_description desc;
    add_sweep_options(desc, values);
    std::ostringstream text;
    text << desc;
    // Undo the help's line wrapping: one space between words.
    std::istringstream in(text.str());
    std::string word, joined;
    while (in >> word)
        joined += (joined.empty() ? "" : " ") + word;
    return joined;
}

}  // namespace

TEST_CASE("options not given keep SweepOptions' defaults") {
    SweepOptions parsed = parse({});
    SweepOptions defaults;
    CHECK(parsed.threads_per_node == defaults.threads_per_node);
    CHECK(parsed.repetitions == defaults.repetitions);
    CHECK(parsed.phases == defaults.phases);
    CHECK(parsed.page_size_kb == defaults.page_size_kb);
    CHECK(parsed.sample_mib_per_node == defaults.sample_mib_per_node);
    CHECK(parsed.max_memory_fraction == defaults.max_memory_fraction);
    CHECK(parsed.seed == defaults.seed);

    SweepOptions given = parse({"--threads", "2,4", "--page-size", "1G", "--seed", "7"});
    CHECK(given.threads_per_node == std::vector<int>{2, 4});
    CHECK(given.page_size_kb == 1024 * 1024);
    CHECK(given.seed == 7);
    CHECK(given.repetitions == defaults.repetitions);
}

TEST_CASE("adaptive unless --repetitions fixes the count; --budget bounds the adaptive rule") {
    SweepOptions adaptive = parse({});
    CHECK(adaptive.adaptive);
    CHECK_FALSE(adaptive.budget_seconds.has_value());
    CHECK(adaptive.first_rounds() == kAdaptiveFirstRounds);
    CHECK(adaptive.most_repetitions() == kAdaptiveMaxRepetitions);

    SweepOptions fixed = parse({"--repetitions", "5"});
    CHECK_FALSE(fixed.adaptive);
    CHECK(fixed.first_rounds() == 5);
    CHECK(fixed.most_repetitions() == 5);

    SweepOptions budget = parse({"--budget", "12.5"});
    CHECK(budget.adaptive);
    REQUIRE(budget.budget_seconds.has_value());
    CHECK(*budget.budget_seconds == 12.5);

    for (const char* bad : {"0", "-3", "x", "", "inf", "nan", "5s"})
        CHECK_THROWS_WITH_AS(parse({"--budget", bad}),
                             ("--budget: give a positive number of seconds, e.g. 60; '" +
                              std::string(bad) + "' is not one")
                                 .c_str(),
                             UsageError);
    CHECK_THROWS_WITH_AS(
        parse({"--budget", "30", "--repetitions", "3"}),
        "--budget: bounds the adaptive rule, which --repetitions turns off; give one of "
        "them",
        UsageError);
}

TEST_CASE("the help states the settings' defaults and ranges") {
    const std::string help = help_text();
    CHECK(help.find("Sweep options:") != std::string::npos);
    CHECK(help.find("(default 1,2,4,8,16,32; each 1 to " + std::to_string(kMaxThreadsPerNode) +
                    ")") != std::string::npos);
    static_assert(kAdaptiveFirstRounds == 1, "the help says once");
    CHECK(help.find("(default adaptive: every point once, then up to " +
                    std::to_string(kAdaptiveMaxRepetitions) +
                    " samples only for the points that could still change the decision; 1 to " +
                    std::to_string(kMaxRepetitions) + ")") != std::string::npos);
    CHECK(help.find("(default none; above 0)") != std::string::npos);
    CHECK(help.find("(default alloc,zero,grow)") != std::string::npos);
    // The page size's default is the kernel's, in a text long enough to be wrapped.
    std::string flat;
    for (char c : help)
        if (!(std::isspace(static_cast<unsigned char>(c)) && !flat.empty() && flat.back() == ' '))
            flat += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
    CHECK(flat.find("(default " + std::string(kKernelDefaultPageSizeText) + ")") !=
          std::string::npos);
    CHECK(help.find("(default " + std::to_string(kDefaultSampleMib) + ", halved until it fits") !=
          std::string::npos);
    CHECK(help.find("(default 0.5; above 0, at most 0.9)") != std::string::npos);
    CHECK(help.find("(default " + std::to_string(kDefaultSeed) + ")") != std::string::npos);
}

TEST_CASE("values the plan would refuse are refused while parsing, with the plan's message") {
    struct Case {
        std::vector<std::string> args;
        SweepOptions options;  // the same value set directly
    };
    Case cases[] = {{{"--max-memory-fraction", "0.95"}, {}},
                    {{"--threads", "1,4097"}, {}},
                    {{"--repetitions", "1001"}, {}}};
    cases[0].options.max_memory_fraction = 0.95;
    cases[1].options.threads_per_node = {1, 4097};
    cases[2].options.repetitions = 1001;
    for (const auto& c : cases) {
        std::string engine = "(accepted)", cli = "(accepted)";
        try {
            validate_sweep_options(c.options);
        } catch (const SettingError& e) {
            engine = e.setting + ": " + e.what();
        }
        try {
            parse(c.args);
        } catch (const SettingError& e) {
            cli = e.setting + ": " + e.what();
        }
        CHECK(engine != "(accepted)");
        CHECK(cli == engine);
    }
    CHECK(parse({"--max-memory-fraction", "0.9"}).max_memory_fraction == 0.9);
}
