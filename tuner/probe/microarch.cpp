#include "tuner/probe/microarch.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "model/text.hpp"

namespace hugetune {
namespace {

struct Row {
    std::string_view vendor;
    int family;
    int model;
    int stepping_min;  // inclusive; -1 = any
    int stepping_max;
    std::string_view name;
};

// Intel server parts by family 6 model (and stepping where one model spans generations:
// model 85 is Skylake-SP at steppings 0-4, Cascade Lake-SP at 5-7, Cooper Lake at 10-11).
// AMD by family 0x17/0x19/0x1a and model range, server (EPYC) generations.
constexpr std::array<Row, 14> kTable = {{
    {"GenuineIntel", 6, 63, -1, -1, "haswell-ep"},
    {"GenuineIntel", 6, 79, -1, -1, "broadwell-ep"},
    {"GenuineIntel", 6, 86, -1, -1, "broadwell-de"},
    {"GenuineIntel", 6, 85, 0, 4, "skylake-sp"},
    {"GenuineIntel", 6, 85, 5, 7, "cascadelake-sp"},
    {"GenuineIntel", 6, 85, 10, 11, "cooperlake-sp"},
    {"GenuineIntel", 6, 106, -1, -1, "icelake-sp"},
    {"GenuineIntel", 6, 108, -1, -1, "icelake-d"},
    {"GenuineIntel", 6, 143, -1, -1, "sapphirerapids"},
    {"GenuineIntel", 6, 207, -1, -1, "emeraldrapids"},
    {"GenuineIntel", 6, 173, -1, -1, "graniterapids"},
    {"GenuineIntel", 6, 174, -1, -1, "graniterapids-d"},
    {"GenuineIntel", 6, 175, -1, -1, "sierraforest"},
    {"GenuineIntel", 6, 221, -1, -1, "clearwaterforest"},
}};

// AMD server generations by family and model range: family 0x17 Zen/Zen+ (Naples) and Zen 2
// (Rome); 0x19 Zen 3 (Milan), Zen 4 (Genoa), Zen 4c (Bergamo, Siena); 0x1a Zen 5 (Turin) and
// Zen 5c (Turin dense). Client parts of the same core share the name.
std::string_view amd_by_range(int family, int model) {
    if (family == 0x17) {
        if (model <= 0x0f)
            return "zen";  // Naples (Zen, Zen+)
        if (model >= 0x30 && model <= 0x3f)
            return "zen2";  // Rome
        if (model >= 0x60 && model <= 0x7f)
            return "zen2";
        return {};
    }
    if (family == 0x19) {
        if (model <= 0x0f)
            return "zen3";  // Milan (0x01), Milan-X
        if (model >= 0x10 && model <= 0x1f)
            return "zen4";  // Genoa, Genoa-X (0x11)
        if (model >= 0x20 && model <= 0x5f)
            return "zen3";  // client Zen 3
        if (model >= 0x60 && model <= 0x7f)
            return "zen4";  // client Zen 4
        if (model >= 0xa0 && model <= 0xaf)
            return "zen4c";  // Bergamo, Siena
        return {};
    }
    if (family == 0x1a) {
        if (model <= 0x0f)
            return "zen5";  // Turin (0x02)
        if (model >= 0x10 && model <= 0x1f)
            return "zen5c";  // Turin dense (0x11)
        if (model >= 0x20 && model <= 0x7f)
            return "zen5";  // client Zen 5
        return {};
    }
    return {};
}

int to_int(std::string_view s) {
    int v = -1;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return (ec == std::errc() && p == s.data() + s.size()) ? v : -1;
}

// "0x41" or "0xd0c" as arm64's /proc/cpuinfo writes its MIDR fields; "8" for the architecture.
int to_int_auto(std::string_view s) {
    if (s.starts_with("0x") || s.starts_with("0X")) {
        s.remove_prefix(2);
        int v = -1;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
        return (ec == std::errc() && p == s.data() + s.size() && !s.empty()) ? v : -1;
    }
    return to_int(s);
}

struct ArmImplementer {
    int code;
    std::string_view name;
};

// MIDR implementer codes, as arch/arm64/include/asm/cputype.h names them (ARM_CPU_IMP_*).
constexpr std::array<ArmImplementer, 11> kArmImplementers = {{
    {0x41, "ARM"},
    {0x42, "Broadcom"},
    {0x43, "Cavium"},
    {0x46, "Fujitsu"},
    {0x48, "HiSilicon"},
    {0x4e, "NVIDIA"},
    {0x50, "APM"},
    {0x51, "Qualcomm"},
    {0x61, "Apple"},
    {0x6d, "Microsoft"},
    {0xc0, "Ampere"},
}};

struct ArmPart {
    int implementer;
    int part;
    std::string_view microarch;
    std::string_view core;
};

// Server cores by implementer and part number, from arch/arm64/include/asm/cputype.h
// (ARM_CPU_PART_*, AMPERE_CPU_PART_*, HISI_CPU_PART_*, FUJITSU_CPU_PART_A64FX,
// MICROSOFT_CPU_PART_AZURE_COBALT_100, CAVIUM/BRCM ThunderX2) and the vendors' technical
// reference manuals (the MIDR_EL1 reset value of each core). Parts licensed from Arm report
// Arm's implementer code whoever built the SoC: AWS Graviton2 and Ampere Altra are Neoverse N1,
// Graviton3 Neoverse V1, Graviton4, NVIDIA Grace and Google Axion Neoverse V2. Microsoft's
// Cobalt 100 reports its own implementer with Neoverse N2's part number ("based on r0p0 of
// Neoverse N2", cputype.h).
constexpr std::array<ArmPart, 16> kArmParts = {{
    {0x41, 0xd08, "cortex-a72", "Cortex-A72"},
    {0x41, 0xd0c, "neoverse-n1", "Neoverse N1"},
    {0x41, 0xd40, "neoverse-v1", "Neoverse V1"},
    {0x41, 0xd49, "neoverse-n2", "Neoverse N2"},
    {0x41, 0xd4f, "neoverse-v2", "Neoverse V2"},
    {0x41, 0xd83, "neoverse-v3ae", "Neoverse V3AE"},
    {0x41, 0xd84, "neoverse-v3", "Neoverse V3"},
    {0x41, 0xd8e, "neoverse-n3", "Neoverse N3"},
    {0x6d, 0xd49, "neoverse-n2", "Azure Cobalt 100 (Neoverse N2)"},
    {0xc0, 0xac3, "ampere1", "AmpereOne (Ampere-1)"},
    {0xc0, 0xac4, "ampere1a", "AmpereOne (Ampere-1A)"},
    {0x48, 0xd01, "tsv110", "Kunpeng 920 (TaiShan v110)"},
    {0x48, 0xd02, "hip09", "HiSilicon HIP09"},
    {0x46, 0x001, "a64fx", "A64FX"},
    {0x43, 0x0af, "thunderx2", "ThunderX2"},
    {0x42, 0x516, "thunderx2", "ThunderX2 (Vulcan)"},
}};

const ArmPart* arm_part(int implementer, int part) {
    for (const auto& row : kArmParts)
        if (row.implementer == implementer && row.part == part)
            return &row;
    return nullptr;
}

}  // namespace

std::string classify_microarch(std::string_view vendor, int family, int model, int stepping) {
    if (vendor == "AuthenticAMD") {
        auto name = amd_by_range(family, model);
        return std::string(name.empty() ? kUnknownMicroarch : name);
    }
    if (vendor == "HygonGenuine" && family == 0x18)
        return "dhyana";  // Zen-derived
    for (const auto& row : kTable) {
        if (row.vendor != vendor || row.family != family || row.model != model)
            continue;
        if (row.stepping_min >= 0 && (stepping < row.stepping_min || stepping > row.stepping_max))
            continue;
        return std::string(row.name);
    }
    return std::string(kUnknownMicroarch);
}

std::string classify_arm64_microarch(int implementer, int part) {
    const ArmPart* row = arm_part(implementer, part);
    return std::string(row ? row->microarch : kUnknownMicroarch);
}

std::string arm64_implementer_name(int implementer) {
    for (const auto& row : kArmImplementers)
        if (row.code == implementer)
            return std::string(row.name);
    char code[8];
    std::snprintf(code, sizeof code, "0x%02x", static_cast<unsigned>(implementer) & 0xffU);
    return code;
}

std::string arm64_core_name(int implementer, int part) {
    const ArmPart* row = arm_part(implementer, part);
    return row ? std::string(row->core) : std::string();
}

std::optional<Midr> parse_midr(std::string_view text) {
    text = trim(text);
    if (text.starts_with("0x") || text.starts_with("0X"))
        text.remove_prefix(2);
    std::uint64_t value = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (text.empty() || ec != std::errc() || p != text.data() + text.size() ||
        value > 0xffffffffULL)
        return std::nullopt;
    Midr m;
    m.implementer = static_cast<int>((value >> 24) & 0xff);
    m.variant = static_cast<int>((value >> 20) & 0xf);
    m.architecture = static_cast<int>((value >> 16) & 0xf);
    m.part = static_cast<int>((value >> 4) & 0xfff);
    m.revision = static_cast<int>(value & 0xf);
    return m;
}

std::string arm64_unknown_core_name(int implementer, int part) {
    char name[64];
    std::snprintf(name, sizeof name, "unknown Arm core (implementer 0x%02x, part 0x%03x)",
                  static_cast<unsigned>(implementer) & 0xffU, static_cast<unsigned>(part) & 0xfffU);
    return name;
}

void set_midr(CpuIdentity& id, const Midr& midr) {
    id.midr = midr;
    id.vendor = arm64_implementer_name(midr.implementer);
    id.model_name = arm64_core_name(midr.implementer, midr.part);
    if (id.model_name.empty())
        id.model_name = arm64_unknown_core_name(midr.implementer, midr.part);
    id.microarch = classify_arm64_microarch(midr.implementer, midr.part);
}

CpuIdentity parse_cpuinfo(std::string_view cpuinfo) {
    CpuIdentity id;
    Midr midr;
    int arm_fields = 0;  // implementer and part: enough to name an arm64 core
    std::istringstream in{std::string(cpuinfo)};
    std::string line;
    while (std::getline(in, line)) {
        std::string_view l = line;
        if (trim(l).empty()) {
            if (!id.vendor.empty() || arm_fields > 0)
                break;  // end of the first processor block
            continue;
        }
        auto colon = l.find(':');
        if (colon == std::string_view::npos)
            continue;
        auto key = trim(l.substr(0, colon));
        auto value = trim(l.substr(colon + 1));
        if (key == "vendor_id")
            id.vendor = value;
        else if (key == "cpu family")
            id.family = to_int(value);
        else if (key == "model")
            id.model = to_int(value);
        else if (key == "stepping")
            id.stepping = to_int(value);
        else if (key == "model name")
            id.model_name = value;
        else if (key == "CPU implementer" && (midr.implementer = to_int_auto(value)) >= 0)
            ++arm_fields;
        else if (key == "CPU part" && (midr.part = to_int_auto(value)) >= 0)
            ++arm_fields;
        else if (key == "CPU variant")
            midr.variant = std::max(0, to_int_auto(value));
        else if (key == "CPU architecture")
            midr.architecture = std::max(0, to_int_auto(value));
        else if (key == "CPU revision")
            midr.revision = std::max(0, to_int_auto(value));
    }
    if (arm_fields == 2 && id.vendor.empty()) {
        set_midr(id, midr);
        return id;
    }
    id.microarch = classify_microarch(id.vendor, id.family, id.model, id.stepping);
    return id;
}

}  // namespace hugetune
