#include <doctest/doctest.h>

#include "tuner/probe/microarch.hpp"

using namespace hugetune;

TEST_CASE("microarch: Intel server generations") {
    const char* intel = "GenuineIntel";
    CHECK(classify_microarch(intel, 6, 63, 2) == "haswell-ep");
    CHECK(classify_microarch(intel, 6, 79, 1) == "broadwell-ep");
    CHECK(classify_microarch(intel, 6, 106, 6) == "icelake-sp");
    CHECK(classify_microarch(intel, 6, 143, 8) == "sapphirerapids");
    CHECK(classify_microarch(intel, 6, 207, 2) == "emeraldrapids");
    CHECK(classify_microarch(intel, 6, 173, 1) == "graniterapids");
    CHECK(classify_microarch(intel, 6, 175, 3) == "sierraforest");
}

TEST_CASE("microarch: model 85 splits by stepping") {
    const char* intel = "GenuineIntel";
    for (int s : {0, 2, 3, 4})
        CHECK(classify_microarch(intel, 6, 85, s) == "skylake-sp");
    for (int s : {5, 6, 7})
        CHECK(classify_microarch(intel, 6, 85, s) == "cascadelake-sp");
    for (int s : {10, 11})
        CHECK(classify_microarch(intel, 6, 85, s) == "cooperlake-sp");
    CHECK(classify_microarch(intel, 6, 85, 8) == "unknown");
}

TEST_CASE("microarch: AMD Zen generations by family and model range") {
    const char* amd = "AuthenticAMD";
    CHECK(classify_microarch(amd, 0x17, 0x01, 2) == "zen");    // Naples
    CHECK(classify_microarch(amd, 0x17, 0x31, 0) == "zen2");   // Rome
    CHECK(classify_microarch(amd, 0x19, 0x01, 1) == "zen3");   // Milan
    CHECK(classify_microarch(amd, 0x19, 0x11, 1) == "zen4");   // Genoa
    CHECK(classify_microarch(amd, 0x19, 0xa0, 2) == "zen4c");  // Bergamo
    CHECK(classify_microarch(amd, 0x1a, 0x02, 1) == "zen5");   // Turin
    CHECK(classify_microarch(amd, 0x1a, 0x11, 0) == "zen5c");  // Turin dense
}

TEST_CASE("microarch: unknown keeps the raw numbers") {
    CHECK(classify_microarch("GenuineIntel", 6, 999, 0) == "unknown");
    CHECK(classify_microarch("CentaurHauls", 7, 1, 0) == "unknown");
    auto id = parse_cpuinfo(
        "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 1234\n"
        "model name\t: Future Xeon\nstepping\t: 9\n");
    CHECK(id.microarch == "unknown");
    CHECK(id.family == 6);
    CHECK(id.model == 1234);
    CHECK(id.stepping == 9);
    CHECK(id.model_name == "Future Xeon");
}

TEST_CASE("cpuinfo: the first processor block is read") {
    auto id = parse_cpuinfo(
        "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
        "model name\t: Intel(R) Xeon(R) Gold 6252\nstepping\t: 7\n\n"
        "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
        "stepping\t: 4\n\n");
    CHECK(id.vendor == "GenuineIntel");
    CHECK(id.stepping == 7);
    CHECK(id.microarch == "cascadelake-sp");
    CHECK(parse_cpuinfo("").microarch == "unknown");
}
