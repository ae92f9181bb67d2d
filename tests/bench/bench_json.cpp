// Reading the JSON documents hugetune writes: the fast reader of the plain part
// (model/input/json_plain.hpp) against nlohmann/json's parser, the full reader it falls back
// to, on the same texts in one run. Prints the medians and their ratio; asserts no time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/input/json_plain.hpp"

using Clock = std::chrono::steady_clock;

namespace {

std::string file_text(const std::string& relative) {
    std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/" + relative, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

template <typename F>
double median_us(int runs, F&& work) {
    std::vector<double> us;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        work();
        us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

}  // namespace

int main() {
    for (const char* name :
         {"tests/fixtures/fleet/report-1.json", "tests/data/sweep-zen4-2node.json"}) {
        const std::string text = file_text(name);
        std::size_t sink = 0;
        // Warm-up, then alternate so both see the same machine.
        for (int i = 0; i < 20; ++i)
            sink +=
                nlohmann::json::parse(text).size() + hugetune::model::read_plain_json(text)->size();
        const double full = median_us(201, [&] { sink += nlohmann::json::parse(text).size(); });
        const double plain =
            median_us(201, [&] { sink += hugetune::model::read_plain_json(text)->size(); });
        std::printf("%s (%zu kB): nlohmann/json %8.1f us, plain reader %8.1f us, ratio %.2f%s\n",
                    name, text.size() / 1024, full, plain, full / plain, sink == 0 ? " " : "");
    }
    return 0;
}
