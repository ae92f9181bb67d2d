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

// The digest of the fleet fixture's report, read five ways in turn, as above.
void digest_reads() {
    using hugetune::bench::median_seconds;
    namespace fleet = hugetune::model::fleet;
    const nlohmann::json report =
        nlohmann::json::parse(file_text("tests/fixtures/fleet/report-1.json"));
    const std::string text = fleet::run_digest(fleet::read_run(report)).value();
    const nlohmann::json doc = nlohmann::json::parse(text);
    const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(doc);
    const std::vector<std::uint8_t> msgpack = nlohmann::json::to_msgpack(doc);
    volatile std::size_t sink = 0;
    constexpr int kWays = 5;
    const char* names[kWays] = {"nlohmann/json parse", "plain reader", "CBOR (nlohmann)",
                                "MessagePack (nlohmann)", "read_run_digest, whole"};
    double mean[kWays] = {};
    for (int round = 0; round <= 11; ++round) {
        const double t[kWays] = {
            median_seconds(201, [&] { sink = sink + nlohmann::json::parse(text).size(); }),
            median_seconds(201,
                           [&] { sink = sink + hugetune::model::read_plain_json(text)->size(); }),
            median_seconds(201, [&] { sink = sink + nlohmann::json::from_cbor(cbor).size(); }),
            median_seconds(201,
                           [&] { sink = sink + nlohmann::json::from_msgpack(msgpack).size(); }),
            median_seconds(
                201, [&] { sink = sink + fleet::read_run_digest(text, {}).value().host.size(); })};
        if (round == 0)
            continue;
        for (int w = 0; w < kWays; ++w)
            mean[w] += t[w] / 11;
    }
    std::printf("run digest: %zu bytes of JSON, %zu of CBOR, %zu of MessagePack\n", text.size(),
                cbor.size(), msgpack.size());
    for (int w = 0; w < kWays; ++w)
        std::printf("run digest, %-24s %8.2f us, %.2f of the plain reader's time\n", names[w],
                    mean[w] * 1e6, mean[w] / mean[1]);
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
    digest_reads();
    return 0;
}
