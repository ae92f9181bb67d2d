#include "model/microarch.hpp"

#include <array>
#include <cstdio>

namespace hugetune::model {
namespace {

struct Row {
    std::string_view vendor;
    int family;
    int model;
    int stepping_min;  // inclusive; -1 = any
    int stepping_max;
    std::string_view name;
};

// Intel parts by family 6 model (and stepping where one model spans generations: model 85 is
// Skylake-SP at steppings 0-4, Cascade Lake-SP at 5-7, Cooper Lake at 10-11; the kernel's
// arch/x86/include/asm/intel-family.h lists models, not steppings, so any other stepping of 85
// keeps its identity name). The models are intel-family.h's: SANDYBRIDGE_X 0x2D,
// IVYBRIDGE_X 0x3E, HASWELL_X 0x3F, BROADWELL_X 0x4F, BROADWELL_D 0x56, SKYLAKE_X 0x55,
// ICELAKE_X 0x6A, ICELAKE_D 0x6C, ROCKETLAKE 0xA7 (Cypress Cove), ALDERLAKE 0x97 and
// ALDERLAKE_L 0x9A (Golden Cove / Gracemont), RAPTORLAKE 0xB7, RAPTORLAKE_P 0xBA and
// RAPTORLAKE_S 0xBF (Raptor Cove / Enhanced Gracemont), SAPPHIRERAPIDS_X 0x8F,
// EMERALDRAPIDS_X 0xCF, GRANITERAPIDS_X 0xAD, GRANITERAPIDS_D 0xAE, ATOM_CRESTMONT_X 0xAF
// (Sierra Forest), ATOM_DARKMONT_X 0xDD (Clearwater Forest). Client parts are named too: a
// workstation or CI host measured with hugetune deserves its own SKU as much as a server.
constexpr std::array<Row, 22> kTable = {{
    {"GenuineIntel", 6, 45, -1, -1, "sandybridge-ep"},
    {"GenuineIntel", 6, 62, -1, -1, "ivybridge-ep"},
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
    {"GenuineIntel", 6, 167, -1, -1, "rocketlake"},
    {"GenuineIntel", 6, 151, -1, -1, "alderlake"},
    {"GenuineIntel", 6, 154, -1, -1, "alderlake"},
    {"GenuineIntel", 6, 183, -1, -1, "raptorlake"},
    {"GenuineIntel", 6, 186, -1, -1, "raptorlake"},
    {"GenuineIntel", 6, 191, -1, -1, "raptorlake"},
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

// x86 vendor_id strings as CPUID leaf 0 returns them, shortened for the identity name.
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kVendors = {{
    {"GenuineIntel", "intel"},
    {"AuthenticAMD", "amd"},
    {"HygonGenuine", "hygon"},
    {"CentaurHauls", "centaur"},
    {"  Shanghai  ", "zhaoxin"},
}};

// The vendor part of an identity name: the short form above, else the vendor_id's letters and
// digits, lower-cased, at most 16 of them; empty when it has none.
std::string identity_vendor(std::string_view vendor) {
    for (const auto& [id, name] : kVendors)
        if (id == vendor)
            return std::string(name);
    std::string out;
    for (const char c : vendor) {
        if (out.size() == 16)
            break;
        if (c >= 'A' && c <= 'Z')
            out += static_cast<char>(c - 'A' + 'a');
        else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            out += c;
    }
    return out;
}

std::string_view table_name(std::string_view vendor, int family, int model, int stepping) {
    if (vendor == "AuthenticAMD")
        return amd_by_range(family, model);
    if (vendor == "HygonGenuine" && family == 0x18)
        return "dhyana";  // Zen-derived
    for (const auto& row : kTable) {
        if (row.vendor != vendor || row.family != family || row.model != model)
            continue;
        if (row.stepping_min >= 0 && (stepping < row.stepping_min || stepping > row.stepping_max))
            continue;
        return row.name;
    }
    return {};
}

std::string identity_name(std::string_view vendor, int family, int model, int stepping) {
    const std::string short_vendor = identity_vendor(vendor);
    if (short_vendor.empty() || family < 0 || model < 0 || stepping < 0)
        return std::string(kUnknownMicroarch);
    return short_vendor + "-" + std::to_string(family) + "-" + std::to_string(model) + "-" +
           std::to_string(stepping);
}

std::string arm64_identity_name(int implementer, int part) {
    char name[32];
    std::snprintf(name, sizeof name, "arm-%02x-%03x", static_cast<unsigned>(implementer) & 0xffU,
                  static_cast<unsigned>(part) & 0xfffU);
    return name;
}

bool arm64(const CpuFields& cpu) {
    return cpu.arm_implementer && cpu.arm_part;
}

}  // namespace

bool is_microarch_name(std::string_view name) {
    if (name.empty() || name.size() > kMaxMicroarchBytes || name.front() == '-')
        return false;
    for (const char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return false;
    return true;
}

std::string classify_microarch(std::string_view vendor, int family, int model, int stepping) {
    const std::string_view name = table_name(vendor, family, model, stepping);
    return name.empty() ? identity_name(vendor, family, model, stepping) : std::string(name);
}

std::string classify_arm64_microarch(int implementer, int part) {
    const ArmPart* row = arm_part(implementer, part);
    return row ? std::string(row->microarch) : arm64_identity_name(implementer, part);
}

bool table_names(std::string_view vendor, int family, int model, int stepping) {
    return !table_name(vendor, family, model, stepping).empty();
}

bool table_names_arm64(int implementer, int part) {
    return arm_part(implementer, part) != nullptr;
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

std::string microarch_of(const CpuFields& cpu) {
    if (arm64(cpu))
        return classify_arm64_microarch(*cpu.arm_implementer, *cpu.arm_part);
    return classify_microarch(cpu.vendor, cpu.family, cpu.model, cpu.stepping);
}

bool older_name_of(const CpuFields& cpu, std::string_view name) {
    if (name == kUnknownMicroarch)
        return true;
    if (arm64(cpu))
        return name == arm64_identity_name(*cpu.arm_implementer, *cpu.arm_part);
    return name == identity_name(cpu.vendor, cpu.family, cpu.model, cpu.stepping);
}

std::string describe(const CpuFields& cpu) {
    if (arm64(cpu)) {
        char text[96];
        std::snprintf(text, sizeof text, "implementer 0x%02x part 0x%03x",
                      static_cast<unsigned>(*cpu.arm_implementer) & 0xffU,
                      static_cast<unsigned>(*cpu.arm_part) & 0xfffU);
        return (cpu.vendor.empty() ? std::string() : cpu.vendor + " ") + text;
    }
    return (cpu.vendor.empty() ? std::string("no vendor") : cpu.vendor) + " family " +
           std::to_string(cpu.family) + " model " + std::to_string(cpu.model) + " stepping " +
           std::to_string(cpu.stepping);
}

}  // namespace hugetune::model
