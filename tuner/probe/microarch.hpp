// CPU identity and the microarchitecture tables: x86 by vendor, family, model and stepping;
// arm64 by the MIDR_EL1 register's implementer and part number.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/microarch.hpp"

namespace hugetune {

// The fields of arm64's MIDR_EL1 (Arm Architecture Reference Manual, "MIDR_EL1, Main ID
// Register"): implementer [31:24], variant [23:20], architecture [19:16], part number [15:4],
// revision [3:0]. The kernel shows them in /proc/cpuinfo and, whole, in
// /sys/devices/system/cpu/cpuN/regs/identification/midr_el1 (docs/kernel-facts.md "The CPU's
// identity on arm64").
struct Midr {
    int implementer = 0;
    int variant = 0;
    int architecture = 0;
    int part = 0;
    int revision = 0;
};

// "0x00000000410fd0c1" as the kernel writes midr_el1 (hexadecimal, the 0x prefix optional);
// nothing for anything else or a value above 32 bits.
std::optional<Midr> parse_midr(std::string_view text);

// Where /sys/devices/soc0 names the SoC (the SMCCC SOC_ID driver on Arm servers: family
// "jep106:043b", soc_id "jep106:043b:0001", and on newer kernels the machine's name).
struct SocIdentity {
    std::optional<std::string> machine, family, soc_id, revision;

    bool empty() const { return !machine && !family && !soc_id && !revision; }
};

// The tables and the names they give live in model/microarch.hpp, where the fleet's reader
// names a report's CPU with the same functions.
using model::arm64_core_name;
using model::arm64_implementer_name;
using model::classify_arm64_microarch;
using model::classify_microarch;
using model::kUnknownMicroarch;

struct CpuIdentity {
    // x86: vendor_id ("GenuineIntel", "AuthenticAMD"); arm64: the MIDR implementer's name
    // ("ARM", "Ampere", "HiSilicon"), or its code as "0x41" when the table does not know it.
    std::string vendor;
    int family = -1, model = -1, stepping = -1;  // x86 only
    // x86: the CPU's own "model name"; arm64, where the kernel gives none: the core's name
    // from the table ("Neoverse N1"), else arm64_unknown_core_name's.
    std::string model_name;
    // lower-case stable id: the table's "skylake-sp", "neoverse-n1", ...; for a CPU the table
    // does not name its identity name ("intel-6-62-4", "arm-00-051"); kUnknownMicroarch when
    // nothing identifies it
    std::string microarch{kUnknownMicroarch};
    bool in_table = false;     // the table names the CPU
    std::optional<Midr> midr;  // arm64 only
    SocIdentity soc;           // where the kernel names it

    bool named() const { return in_table; }
};

// What the probe calls a core the table does not list, with its codes:
// "unknown Arm core (implementer 0x00, part 0x051)" (QEMU's emulated max CPU reports
// implementer 0x00, which the architecture reserves for software: docs/kernel-facts.md
// "The CPU's identity on arm64").
std::string arm64_unknown_core_name(int implementer, int part);

// First processor block of /proc/cpuinfo (x86's vendor_id/family/model/stepping or arm64's
// CPU implementer/variant/architecture/part/revision); microarch filled in from the table.
CpuIdentity parse_cpuinfo(std::string_view cpuinfo);

// The identity with the MIDR read from sysfs in place of /proc/cpuinfo's fields.
void set_midr(CpuIdentity& id, const Midr& midr);

}  // namespace hugetune
