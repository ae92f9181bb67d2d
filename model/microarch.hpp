// The microarchitecture a SKU key starts with (docs/fleet.md "The SKU key"): the tables that
// name CPUs, the identity name of a CPU they do not name, and the rule every such name keeps.
// The probe names the machine it runs on with these; the fleet's reader names a report's `cpu`
// block with the same functions, so a report and this hugetune's table are compared, not trusted.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hugetune::model {

// What names a CPU where nothing identifies it (no vendor, or x86 fields missing): hosts of such
// CPUs with the same nodes, threads and memory share one SKU.
inline constexpr std::string_view kUnknownMicroarch = "unknown";

// The longest microarchitecture name: it starts a SKU key, a CSV cell and a Prometheus label.
inline constexpr std::size_t kMaxMicroarchBytes = 64;

// The rule for a microarchitecture name, wherever one is read (`--sku`, a report's
// `sku.microarch`): 1 to kMaxMicroarchBytes lower-case letters, digits and '-', starting with a
// letter or digit. kMicroarchRule says it in words for the messages.
bool is_microarch_name(std::string_view name);
inline constexpr std::string_view kMicroarchRule =
    "must be 1 to 64 lower-case letters, digits and '-', starting with a letter or digit";

// x86: the table's name ("skylake-sp"), else the identity name
// "<vendor>-<family>-<model>-<stepping>" in decimal ("intel-6-62-4", "amd-21-1-2"), vendor
// shortened as identity_vendor says; kUnknownMicroarch when the vendor or a number is missing.
std::string classify_microarch(std::string_view vendor, int family, int model, int stepping);

// arm64 (the MIDR's implementer and part): the table's name ("neoverse-n1"), else the identity
// name "arm-<implementer>-<part>" in hexadecimal as the MIDR writes them ("arm-00-051").
std::string classify_arm64_microarch(int implementer, int part);

// Whether the table names the CPU (the name is not an identity name or kUnknownMicroarch).
bool table_names(std::string_view vendor, int family, int model, int stepping);
bool table_names_arm64(int implementer, int part);

// The implementer's name ("ARM", "Ampere"), or its code "0x41" when the table does not know it.
std::string arm64_implementer_name(int implementer);

// The core's name ("Neoverse N1"); empty when the table does not list the part.
std::string arm64_core_name(int implementer, int part);

// A CPU as a report's `cpu` block records it: x86's vendor_id, family, model and stepping, or
// arm64's MIDR implementer and part.
struct CpuFields {
    std::string vendor;
    int family = -1, model = -1, stepping = -1;
    std::optional<int> arm_implementer, arm_part;
};

// The name this hugetune gives the CPU (classify_microarch or classify_arm64_microarch).
std::string microarch_of(const CpuFields& cpu);

// The name an older hugetune may have given the same CPU and this one may rename: its identity
// name (the table did not name it then) or kUnknownMicroarch (before identity names).
bool older_name_of(const CpuFields& cpu, std::string_view name);

// "GenuineIntel family 6 model 62 stepping 4", "ARM implementer 0x41 part 0xd0c": for messages.
std::string describe(const CpuFields& cpu);

}  // namespace hugetune::model
