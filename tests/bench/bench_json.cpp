// Reading the JSON documents hugetune writes: the fast reader of the plain part
// (model/input/json_plain.hpp) against nlohmann/json's parser, the full reader it falls back
// to, on the same texts in one run, in alternate rounds so both see the same machine. Prints
// the medians and their ratio; asserts no time.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "model/input/json_plain.hpp"
#include "tests/bench/median_time.hpp"

namespace {

std::string file_text(const std::string& relative) {
    std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/" + relative, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

int main() {
    using hugetune::bench::median_seconds;
    for (const char* name :
         {"tests/fixtures/fleet/report-1.json", "tests/data/sweep-zen4-2node.json"}) {
        const std::string text = file_text(name);
        volatile std::size_t sink = 0;
        double full = 0, plain = 0;
        // After a warm-up round, 11 rounds of the median of 21 reads by each reader in turn;
        // the figures are the rounds' mean.
        for (int round = 0; round <= 11; ++round) {
            const double f =
                median_seconds(21, [&] { sink = sink + nlohmann::json::parse(text).size(); });
            const double p = median_seconds(
                21, [&] { sink = sink + hugetune::model::read_plain_json(text)->size(); });
            if (round == 0)
                continue;
            full += f / 11;
            plain += p / 11;
        }
        std::printf("%s (%zu kB): nlohmann/json %8.1f us, plain reader %8.1f us, ratio %.2f\n",
                    name, text.size() / 1024, full * 1e6, plain * 1e6, full / plain);
    }
    return 0;
}
