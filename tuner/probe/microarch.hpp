// CPU identity and the microarchitecture table (vendor, family, model, stepping -> name).
#pragma once

#include <string>
#include <string_view>

namespace hugetune {

struct CpuIdentity {
    std::string vendor;  // "GenuineIntel", "AuthenticAMD", ...
    int family = -1, model = -1, stepping = -1;
    std::string model_name;
    std::string microarch = "unknown";  // lower-case stable id: "skylake-sp", "zen4", ...
};

// Lower-case stable identifier, or "unknown".
std::string classify_microarch(std::string_view vendor, int family, int model, int stepping);

// First processor block of /proc/cpuinfo; microarch filled in from the table.
CpuIdentity parse_cpuinfo(std::string_view cpuinfo);

}  // namespace hugetune
