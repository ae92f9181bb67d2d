#include <doctest/doctest.h>

#include <string>
#include <vector>

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
    // intel-family.h lists models, not steppings: stepping 8 keeps its identity.
    CHECK(classify_microarch(intel, 6, 85, 8) == "intel-6-85-8");
}

TEST_CASE("microarch: client and older server parts intel-family.h names") {
    const char* intel = "GenuineIntel";
    CHECK(classify_microarch(intel, 6, 45, 7) == "sandybridge-ep");
    CHECK(classify_microarch(intel, 6, 62, 4) == "ivybridge-ep");
    CHECK(classify_microarch(intel, 6, 167, 1) == "rocketlake");
    CHECK(classify_microarch(intel, 6, 151, 2) == "alderlake");
    CHECK(classify_microarch(intel, 6, 154, 3) == "alderlake");
    CHECK(classify_microarch(intel, 6, 183, 1) == "raptorlake");
    CHECK(classify_microarch(intel, 6, 191, 2) == "raptorlake");
}

TEST_CASE("microarch: Xeon E5 v2, Opteron, Alder Lake and model 85 stepping 8 are four names") {
    // Xeon E5 v2, an Opteron (family 0x15), Alder Lake and a model 85 at stepping 8 were all
    // `unknown` and so one SKU.
    const std::vector<std::string> names = {
        classify_microarch("GenuineIntel", 6, 62, 4),
        classify_microarch("AuthenticAMD", 0x15, 0x01, 2),
        classify_microarch("GenuineIntel", 6, 151, 2),
        classify_microarch("GenuineIntel", 6, 85, 8),
    };
    CHECK(names ==
          std::vector<std::string>{"ivybridge-ep", "amd-21-1-2", "alderlake", "intel-6-85-8"});
    for (const auto& name : names)
        CHECK(model::is_microarch_name(name));
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

TEST_CASE("microarch: an unnamed CPU is named by its identity, in decimal") {
    CHECK(classify_microarch("GenuineIntel", 6, 999, 0) == "intel-6-999-0");
    CHECK(classify_microarch("CentaurHauls", 7, 1, 0) == "centaur-7-1-0");
    CHECK(classify_microarch("HygonGenuine", 0x19, 4, 1) == "hygon-25-4-1");
    CHECK(classify_microarch("  Shanghai  ", 7, 59, 0) == "zhaoxin-7-59-0");
    CHECK(classify_microarch("Some Vendor!", 5, 1, 0) == "somevendor-5-1-0");
    // Nothing identifies it: `unknown`, as before.
    CHECK(classify_microarch("", 6, 1, 0) == "unknown");
    CHECK(classify_microarch("GenuineIntel", -1, -1, -1) == "unknown");
    auto id = parse_cpuinfo(
        "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 1234\n"
        "model name\t: Future Xeon\nstepping\t: 9\n");
    CHECK(id.microarch == "intel-6-1234-9");
    CHECK_FALSE(id.named());
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

TEST_CASE("microarch: arm64 server cores by MIDR implementer and part") {
    CHECK(classify_arm64_microarch(0x41, 0xd0c) == "neoverse-n1");
    CHECK(classify_arm64_microarch(0x41, 0xd40) == "neoverse-v1");
    CHECK(classify_arm64_microarch(0x41, 0xd49) == "neoverse-n2");
    CHECK(classify_arm64_microarch(0x41, 0xd4f) == "neoverse-v2");
    CHECK(classify_arm64_microarch(0x41, 0xd84) == "neoverse-v3");
    CHECK(classify_arm64_microarch(0xc0, 0xac3) == "ampere1");
    CHECK(classify_arm64_microarch(0xc0, 0xac4) == "ampere1a");
    CHECK(classify_arm64_microarch(0x48, 0xd01) == "tsv110");
    CHECK(classify_arm64_microarch(0x46, 0x001) == "a64fx");
    // Cobalt 100 names its own implementer with Neoverse N2's part number.
    CHECK(classify_arm64_microarch(0x6d, 0xd49) == "neoverse-n2");
    // A part number means nothing without its implementer.
    CHECK(classify_arm64_microarch(0xc0, 0xd0c) == "arm-c0-d0c");
    CHECK(classify_arm64_microarch(0x41, 0xfff) == "arm-41-fff");
    CHECK(arm64_implementer_name(0x41) == "ARM");
    CHECK(arm64_implementer_name(0xc0) == "Ampere");
    CHECK(arm64_implementer_name(0x99) == "0x99");
    CHECK(arm64_core_name(0x41, 0xd0c) == "Neoverse N1");
    CHECK(arm64_core_name(0x41, 0xfff).empty());
}

TEST_CASE("midr_el1: the register's fields as sysfs writes it") {
    auto m = parse_midr("0x00000000413fd0c1\n");
    REQUIRE(m);
    CHECK(m->implementer == 0x41);
    CHECK(m->variant == 3);
    CHECK(m->architecture == 0xf);
    CHECK(m->part == 0xd0c);
    CHECK(m->revision == 1);
    m = parse_midr("481fd010");
    REQUIRE(m);
    CHECK(m->implementer == 0x48);
    CHECK(m->part == 0xd01);
    CHECK(!parse_midr(""));
    CHECK(!parse_midr("0x"));
    CHECK(!parse_midr("0x1ffffffff"));  // MIDR_EL1's upper 32 bits are RES0
    CHECK(!parse_midr("0x41zz"));
}

TEST_CASE("midr_el1: QEMU's emulated max CPU is an unknown core, named with its codes") {
    // As the boot lab's arm64 guest (qemu-system-aarch64 -cpu max, QEMU 7.2) shows it in sysfs:
    // implementer 0x00 (reserved for software), architecture 0xf, part 0x051.
    auto m = parse_midr("0x00000000000f0510\n");
    REQUIRE(m);
    CpuIdentity id;
    set_midr(id, *m);
    CHECK(id.vendor == "0x00");
    CHECK(id.microarch == "arm-00-051");
    CHECK_FALSE(id.named());
    CHECK(id.model_name == "unknown Arm core (implementer 0x00, part 0x051)");
    CHECK(arm64_unknown_core_name(0x1ff, 0x1051) ==
          "unknown Arm core (implementer 0xff, part 0x051)");
}

TEST_CASE("cpuinfo: arm64's MIDR fields name the core") {
    auto id = parse_cpuinfo(
        "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm\n"
        "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n"
        "CPU part\t: 0xd4f\nCPU revision\t: 1\n\n"
        "processor\t: 1\nCPU implementer\t: 0xc0\nCPU part\t: 0xac3\n\n");
    REQUIRE(id.midr);
    CHECK(id.midr->implementer == 0x41);
    CHECK(id.midr->part == 0xd4f);
    CHECK(id.midr->architecture == 8);
    CHECK(id.midr->revision == 1);
    CHECK(id.vendor == "ARM");
    CHECK(id.model_name == "Neoverse V2");
    CHECK(id.microarch == "neoverse-v2");
    CHECK(id.family == -1);

    // A part the table does not know: the raw codes stay, the name says it is unknown and
    // gives them.
    auto unknown = parse_cpuinfo("CPU implementer\t: 0x99\nCPU part\t: 0x123\n");
    REQUIRE(unknown.midr);
    CHECK(unknown.vendor == "0x99");
    CHECK(unknown.microarch == "arm-99-123");
    CHECK(unknown.model_name == "unknown Arm core (implementer 0x99, part 0x123)");

    // Without the part number there is no arm64 identity.
    auto partial = parse_cpuinfo("CPU implementer\t: 0x41\n");
    CHECK(!partial.midr);
    CHECK(partial.microarch == "unknown");
}
