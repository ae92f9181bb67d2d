#include "tuner/probe/microarch.hpp"

#include <array>
#include <charconv>
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

}  // namespace

std::string classify_microarch(std::string_view vendor, int family, int model, int stepping) {
    if (vendor == "AuthenticAMD") {
        auto name = amd_by_range(family, model);
        return name.empty() ? "unknown" : std::string(name);
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
    return "unknown";
}

CpuIdentity parse_cpuinfo(std::string_view cpuinfo) {
    CpuIdentity id;
    std::istringstream in{std::string(cpuinfo)};
    std::string line;
    while (std::getline(in, line)) {
        std::string_view l = line;
        if (trim(l).empty()) {
            if (!id.vendor.empty())
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
    }
    id.microarch = classify_microarch(id.vendor, id.family, id.model, id.stepping);
    return id;
}

}  // namespace hugetune
