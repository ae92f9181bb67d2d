#include "tuner/probe/microarch.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "model/text.hpp"

namespace hugetune {
namespace {

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

}  // namespace

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
    id.in_table = model::table_names_arm64(midr.implementer, midr.part);
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
    id.in_table = model::table_names(id.vendor, id.family, id.model, id.stepping);
    return id;
}

}  // namespace hugetune
