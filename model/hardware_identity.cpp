#include "model/hardware_identity.hpp"

#include <algorithm>

#include "model/enum_names.hpp"
#include "model/sha256.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

constexpr auto kIdentitySourceNames =
    enum_names<IdentitySource>({{IdentitySource::none, "none"},
                                {IdentitySource::dmi_product_uuid, "dmi_product_uuid"},
                                {IdentitySource::machine_id, "machine_id"}});

bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

// Why a product UUID (lower case) names no machine; nothing when it names one.
std::optional<std::string> uuid_problem(const std::string& uuid) {
    static constexpr std::size_t kDashes[] = {8, 13, 18, 23};
    bool shaped = uuid.size() == 36;
    for (std::size_t i = 0; shaped && i < uuid.size(); ++i)
        shaped = std::find(std::begin(kDashes), std::end(kDashes), i) != std::end(kDashes)
                     ? uuid[i] == '-'
                     : is_hex(uuid[i]);
    if (!shaped)
        return "is not a UUID";
    const auto only = [&](char digit) {
        return std::all_of(uuid.begin(), uuid.end(),
                           [&](char c) { return c == '-' || c == digit; });
    };
    if (only('0'))
        return "is all zeros (SMBIOS: the machine has no UUID)";
    if (only('f'))
        return "is all FFh (SMBIOS: the machine's UUID is not set)";
    return std::nullopt;
}

// Why a machine ID (lower case) names no machine; nothing when it names one.
std::optional<std::string> machine_id_problem(const std::string& id) {
    if (id == "uninitialized")
        return "is 'uninitialized' (the first boot has not completed)";
    if (id.size() != 32 || !std::all_of(id.begin(), id.end(), is_hex))
        return "is not 32 hex digits";
    if (std::all_of(id.begin(), id.end(), [](char c) { return c == '0'; }))
        return "is all zeros";
    return std::nullopt;
}

// The value of `reading` in lower case when it names a machine; else its problem added to
// `reason`.
std::optional<std::string> usable(const IdentityReading& reading,
                                  std::optional<std::string> (*problem_of)(const std::string&),
                                  std::string& reason) {
    std::optional<std::string> problem;
    std::string value;
    if (!reading.line) {
        problem = reading.problem;
    } else {
        value = ascii_lower(*reading.line);
        problem = problem_of(value);
    }
    if (!problem)
        return value;
    reason += (reason.empty() ? "" : "; ") + reading.file + " " + *problem;
    return std::nullopt;
}

}  // namespace

std::string_view to_string(IdentitySource source) {
    return name_of(kIdentitySourceNames, source);
}

std::optional<IdentitySource> identity_source(std::string_view name) {
    return value_named(kIdentitySourceNames, name);
}

HardwareIdentity hardware_identity(const IdentityReading& product_uuid,
                                   const IdentityReading& machine_id) {
    HardwareIdentity identity;
    if (const auto uuid = usable(product_uuid, uuid_problem, identity.reason)) {
        identity.source = IdentitySource::dmi_product_uuid;
        identity.sha256 = identity_hash(identity.source, *uuid);
    } else if (const auto id = usable(machine_id, machine_id_problem, identity.reason)) {
        identity.source = IdentitySource::machine_id;
        identity.sha256 = identity_hash(identity.source, *id);
    }
    if (identity.source != IdentitySource::none)
        identity.reason.clear();
    return identity;
}

std::string identity_hash(IdentitySource source, std::string_view value) {
    return sha256_hex(std::string(kIdentityHashDomain) + std::string(to_string(source)) + "\n" +
                      ascii_lower(value));
}

bool is_identity_hash(std::string_view text) {
    return text.size() == 64 && std::all_of(text.begin(), text.end(), is_hex);
}

std::optional<IdentityKey> identity_key(const HardwareIdentity& identity) {
    if (identity.source == IdentitySource::none || !is_identity_hash(identity.sha256))
        return std::nullopt;
    return IdentityKey{identity.source, std::stoull(identity.sha256.substr(0, 16), nullptr, 16)};
}

}  // namespace hugetune::model
