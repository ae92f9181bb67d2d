// FNV-1a, 64 bits: the one digest the fleet keys documents and samples by. It tells apart
// documents where only an accident or an edit makes two differ; not a defence against forgery.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hugetune::model {

class Fnv1a {
  public:
    void add(std::string_view bytes);
    void add(double value);  // its bit pattern: equal digests mean equal bits
    void add(std::uint64_t value);
    std::uint64_t value() const { return hash_; }
    std::string hex() const;  // 16 hex digits

  private:
    std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// 16 hex digits: FNV-1a of `text`.
std::string fnv1a_hex(std::string_view text);

}  // namespace hugetune::model
