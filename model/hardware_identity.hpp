// A machine's hardware identity (docs/fleet.md "The host-name rule"): a hash of what names the
// machine, never the value itself, so that the fleet tells apart two machines whose reports
// came under one host name. machine-id(5) asks that the machine ID be kept confidential and an
// identifier derived from it be a cryptographic hash keyed with a fixed, application-specific
// key; the DMI table's product UUID is treated the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hugetune::model {

// Where an identity comes from, in the order the probe tries them.
enum class IdentitySource : std::uint8_t { none, dmi_product_uuid, machine_id };

// The source's name in a report ("none", "dmi_product_uuid", "machine_id").
std::string_view to_string(IdentitySource source);
// The source a name names; nothing for any other text.
std::optional<IdentitySource> identity_source(std::string_view name);

// The fixed text every identity hash starts with, its key: a hash of a machine's UUID or
// machine ID is then not the hash another tool publishes of the same value, and one tool's
// identities cannot be matched with another's (systemd's authors' reasoning,
// github.com/systemd/systemd/issues/4667). Changing it makes every machine a new host.
inline constexpr std::string_view kIdentityHashDomain = "hugetune hardware identity 1\n";

// A report's `host.hardware_identity`.
struct HardwareIdentity {
    IdentitySource source = IdentitySource::none;
    std::string sha256;  // 64 lower-case hex digits: identity_hash; empty without a source
    std::string reason;  // why there is none, one clause per file; empty with a source

    bool operator==(const HardwareIdentity&) const = default;
};

// What the probe read of one file the identity comes from.
struct IdentityReading {
    std::string file;                 // as on the target machine, for the reason
    std::optional<std::string> line;  // its first line, trimmed; nothing when there is none
    std::string problem;              // why there is none: "is absent", "could not be read"
};

// The identity of a machine whose files read as given: its DMI table's product UUID when that
// names one, else its machine ID when it is one, else none, the reason naming each file's
// problem. A UUID of all 00h or all FFh names none (the SMBIOS specification, DMTF DSP0134
// 7.2.1 "System UUID": not present, or present but not set); a machine ID is 32 hex digits, and
// "uninitialized" until the first boot completes (machine-id(5)).
HardwareIdentity hardware_identity(const IdentityReading& product_uuid,
                                   const IdentityReading& machine_id);

// SHA-256 of kIdentityHashDomain, the source's name, a newline and `value` in lower case: the
// same machine gives the same hash whichever way its firmware cases the UUID.
std::string identity_hash(IdentitySource source, std::string_view value);

// Whether `text` is what identity_hash gives: 64 lower-case hex digits.
bool is_identity_hash(std::string_view text);

// What the fleet compares of a run's identity: its source and the first 64 bits of its hash.
// Only the runs of one host name are compared, so two of its machines share a key by chance
// once in 2^64; the fleet holds 16 bytes a run, not the whole hash, for 100,000 hosts.
struct IdentityKey {
    IdentitySource source = IdentitySource::none;
    std::uint64_t hash_prefix = 0;

    bool operator==(const IdentityKey&) const = default;
};

// The key of an identity with a source; nothing for none.
std::optional<IdentityKey> identity_key(const HardwareIdentity& identity);

}  // namespace hugetune::model
