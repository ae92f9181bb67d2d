// SHA-256 (FIPS 180-4), for the one value hugetune must not keep in the clear: a machine's
// hardware identity (model/hardware_identity.hpp). FNV-1a (model/digest.hpp) keys documents;
// it is no one-way function.
#pragma once

#include <string>
#include <string_view>

namespace hugetune::model {

// 64 lower-case hex digits: SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace hugetune::model
