#include "model/digest.hpp"

#include <cstdio>
#include <cstring>

namespace hugetune::model {

void Fnv1a::add(std::string_view bytes) {
    for (const unsigned char c : bytes) {
        hash_ ^= c;
        hash_ *= 0x100000001b3ULL;
    }
}

void Fnv1a::add(std::uint64_t value) {
    char bytes[sizeof value];
    std::memcpy(bytes, &value, sizeof value);
    add(std::string_view(bytes, sizeof bytes));
}

void Fnv1a::add(double value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    add(bits);
}

std::string Fnv1a::hex() const {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash_));
    return hex;
}

std::string fnv1a_hex(std::string_view text) {
    Fnv1a h;
    h.add(text);
    return h.hex();
}

}  // namespace hugetune::model
