// Reading the JSON documents hugetune writes: the fast reader of the plain part
// (model/input/json_plain.hpp) against nlohmann/json's parser, the full reader it falls back
// to, on the same texts in one run, in alternate rounds so both see the same machine. Prints
// the medians and their ratio; asserts no time. Then a run's digest, the text a SKU's answer
// reads for every run (model/fleet/run_digest.hpp): the two readers, the same document stored
// as CBOR or MessagePack instead and read by nlohmann/json, and the whole read of the digest
// into a run's facts (read_run_digest), which is what storing it as data could save.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "model/fleet/fleet.hpp"
#include "model/fleet/run_digest.hpp"
#include "model/input/json_plain.hpp"
#include "tests/bench/median_time.hpp"

namespace {

std::string file_text(const std::string& relative) {
    std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/" + relative, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// After a warm-up round, 11 rounds of the median of `reads` reads by each way in turn: each
// way's mean over the rounds, in seconds.
std::vector<double> alternate_rounds(int reads, const std::vector<std::function<void()>>& ways) {
    std::vector<double> mean(ways.size(), 0.0);
    for (int round = 0; round <= 11; ++round)
        for (std::size_t w = 0; w < ways.size(); ++w) {
            const double t = hugetune::bench::median_seconds(reads, ways[w]);
            if (round > 0)
                mean[w] += t / 11;
        }
    return mean;
}

// The digest of the fleet fixture's report, read five ways in turn, as above.
void digest_reads() {
    namespace fleet = hugetune::model::fleet;
    const nlohmann::json report =
        nlohmann::json::parse(file_text("tests/fixtures/fleet/report-1.json"));
    const std::string text = fleet::run_digest(fleet::read_run(report)).value();
    const nlohmann::json doc = nlohmann::json::parse(text);
    const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(doc);
    const std::vector<std::uint8_t> msgpack = nlohmann::json::to_msgpack(doc);
    volatile std::size_t sink = 0;
    const char* names[] = {"nlohmann/json parse", "plain reader", "CBOR (nlohmann)",
                           "MessagePack (nlohmann)", "read_run_digest, whole"};
    const std::vector<double> mean = alternate_rounds(
        201, {[&] { sink = sink + nlohmann::json::parse(text).size(); },
              [&] { sink = sink + hugetune::model::read_plain_json(text)->size(); },
              [&] { sink = sink + nlohmann::json::from_cbor(cbor).size(); },
              [&] { sink = sink + nlohmann::json::from_msgpack(msgpack).size(); },
              [&] { sink = sink + fleet::read_run_digest(text, {}).value().host.size(); }});
    std::printf("run digest: %zu bytes of JSON, %zu of CBOR, %zu of MessagePack\n", text.size(),
                cbor.size(), msgpack.size());
    for (std::size_t w = 0; w < mean.size(); ++w)
        std::printf("run digest, %-24s %8.2f us, %.2f of the plain reader's time\n", names[w],
                    mean[w] * 1e6, mean[w] / mean[1]);
}

}  // namespace

int main() {
    for (const char* name :
         {"tests/fixtures/fleet/report-1.json", "tests/data/sweep-zen4-2node.json"}) {
        const std::string text = file_text(name);
        volatile std::size_t sink = 0;
        const std::vector<double> mean = alternate_rounds(
            21, {[&] { sink = sink + nlohmann::json::parse(text).size(); },
                 [&] { sink = sink + hugetune::model::read_plain_json(text)->size(); }});
        const double full = mean[0], plain = mean[1];
        std::printf("%s (%zu kB): nlohmann/json %8.1f us, plain reader %8.1f us, ratio %.2f\n",
                    name, text.size() / 1024, full * 1e6, plain * 1e6, full / plain);
    }
    digest_reads();
    return 0;
}
