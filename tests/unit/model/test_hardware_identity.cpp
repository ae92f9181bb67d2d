// A machine's hardware identity (model/hardware_identity.hpp): SHA-256 against its published
// examples, the sources in their order, the placeholders that name no machine, and a hash that
// is neither the value nor its plain SHA-256.
#include <doctest/doctest.h>

#include <string>

#include "model/hardware_identity.hpp"
#include "model/sha256.hpp"

using namespace hugetune::model;

namespace {

IdentityReading line(const std::string& file, const std::string& text) {
    return {file, text, ""};
}

IdentityReading missing(const std::string& file, const std::string& problem = "is absent") {
    return {file, std::nullopt, problem};
}

const IdentityReading kUuid =
    line("/sys/class/dmi/id/product_uuid", "4C4C4544-0051-3010-8052-B4C04F4B4E32");
const IdentityReading kMachineId = line("/etc/machine-id", "5f2c1e0b9a7d4c3e8b6a0f1d2e3c4b5a");

}  // namespace

TEST_CASE("sha256: the examples of FIPS 180-2 appendix B, and each padding boundary") {
    // FIPS 180-2, appendix B.1, B.2 and B.3.
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha256_hex(std::string(1'000'000, 'a')) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    // The empty message, and 55, 56 and 64 bytes (the length fits the last block, needs one
    // more, a whole block of message): as sha256sum gives them.
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex(std::string(55, 'a')) ==
          "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    CHECK(sha256_hex(std::string(56, 'a')) ==
          "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    CHECK(sha256_hex(std::string(64, 'a')) ==
          "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST_CASE("identity: the product UUID first, hashed with hugetune's own prefix, any case") {
    const HardwareIdentity id = hardware_identity(kUuid, kMachineId);
    CHECK(id.source == IdentitySource::dmi_product_uuid);
    CHECK(id.reason.empty());
    // SHA-256 of "hugetune hardware identity 1\ndmi_product_uuid\n" and the UUID in lower case.
    CHECK(id.sha256 == "698fc6736205ea36dd11255b63e0dd229bd1e22b545e362cfa74401a7265ad4d");
    CHECK(is_identity_hash(id.sha256));
    // Never the value, nor its plain hash, which another tool may publish.
    CHECK(id.sha256 != sha256_hex("4c4c4544-0051-3010-8052-b4c04f4b4e32"));
    CHECK(id.sha256.find("4c4c4544") == std::string::npos);
    const auto lower = line(kUuid.file, "4c4c4544-0051-3010-8052-b4c04f4b4e32");
    CHECK(hardware_identity(lower, missing("/etc/machine-id")) == id);
    // The same text from another source is another identity.
    CHECK(identity_hash(IdentitySource::machine_id, "4c4c4544-0051-3010-8052-b4c04f4b4e32") !=
          id.sha256);
}

TEST_CASE("identity: the machine ID where the UUID names no machine") {
    for (const char* placeholder :
         {"00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
          "ffffffff-ffff-ffff-ffff-ffffffffffff", "not a uuid", "4C4C4544-0051-3010-8052"}) {
        CAPTURE(placeholder);
        const HardwareIdentity id = hardware_identity(line(kUuid.file, placeholder), kMachineId);
        CHECK(id.source == IdentitySource::machine_id);
        CHECK(id.sha256 == "2ee482417f236cacbf05a195254f106765764fe6d70ff9bd8f7b2e9ce7fbd4b4");
        CHECK(id.reason.empty());
    }
    for (const auto& absent : {missing(kUuid.file), missing(kUuid.file, "could not be read")})
        CHECK(hardware_identity(absent, kMachineId).source == IdentitySource::machine_id);
}

TEST_CASE("identity: none, with each file's reason, where neither names the machine") {
    const HardwareIdentity both_absent =
        hardware_identity(missing(kUuid.file), missing("/etc/machine-id"));
    CHECK(both_absent.source == IdentitySource::none);
    CHECK(both_absent.sha256.empty());
    CHECK(both_absent.reason ==
          "/sys/class/dmi/id/product_uuid is absent; /etc/machine-id is absent");
    const HardwareIdentity unread = hardware_identity(missing(kUuid.file, "could not be read"),
                                                      line("/etc/machine-id", "uninitialized"));
    CHECK(unread.source == IdentitySource::none);
    CHECK(unread.reason ==
          "/sys/class/dmi/id/product_uuid could not be read; /etc/machine-id is "
          "'uninitialized' (the first boot has not completed)");
    const HardwareIdentity zeros =
        hardware_identity(line(kUuid.file, "00000000-0000-0000-0000-000000000000"),
                          line("/etc/machine-id", "00000000000000000000000000000000"));
    CHECK(zeros.reason ==
          "/sys/class/dmi/id/product_uuid is all zeros (SMBIOS: the machine has no UUID); "
          "/etc/machine-id is all zeros");
    CHECK(hardware_identity(missing(kUuid.file), line("/etc/machine-id", "5f2c1e0b"))
              .reason.ends_with("/etc/machine-id is not 32 hex digits"));
}

TEST_CASE("identity: sources by name, and the key the fleet compares") {
    for (const auto source :
         {IdentitySource::none, IdentitySource::dmi_product_uuid, IdentitySource::machine_id})
        CHECK(identity_source(to_string(source)) == source);
    CHECK_FALSE(identity_source("dmi_product_serial"));
    const HardwareIdentity id = hardware_identity(kUuid, kMachineId);
    const auto key = identity_key(id);
    REQUIRE(key);
    CHECK(key->source == IdentitySource::dmi_product_uuid);
    CHECK(key->hash_prefix == 0x698fc6736205ea36ULL);
    CHECK_FALSE(identity_key(hardware_identity(missing(kUuid.file), missing("/etc/machine-id"))));
    CHECK_FALSE(is_identity_hash(std::string(64, 'A')));
    CHECK_FALSE(is_identity_hash(std::string(63, 'a')));
}
