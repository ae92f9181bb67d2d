// The 64-bit Mersenne Twister, output for output std::mt19937_64 (whose sequence the C++
// standard fixes, [rand.predef]), written so that the compiler vectorises the regeneration of
// its state: the bootstrap of a large fleet draws hundreds of millions of numbers, and the
// library's scalar regeneration was a quarter of its time. tests/unit/model/test_model_fit.cpp
// compares it with std::mt19937_64.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace hugetune::model {

class Mt19937_64 {
  public:
    explicit Mt19937_64(std::uint64_t seed) {
        state_[0] = seed;
        for (std::size_t i = 1; i < kN; ++i)
            state_[i] = 6364136223846793005ULL * (state_[i - 1] ^ (state_[i - 1] >> 62)) + i;
        next_ = kN;
    }

    std::uint64_t operator()() {
        if (next_ == kN)
            regenerate();
        std::uint64_t z = state_[next_++];
        z ^= (z >> 29) & 0x5555555555555555ULL;
        z ^= (z << 17) & 0x71D67FFFEDA60000ULL;
        z ^= (z << 37) & 0xFFF7EEE000000000ULL;
        return z ^ (z >> 43);
    }

  private:
    static constexpr std::size_t kN = 312, kM = 156;
    static constexpr std::uint64_t kUpper = ~std::uint64_t{0} << 31, kLower = ~kUpper;
    static constexpr std::uint64_t kMatrix = 0xB5026F5AA96619E9ULL;

    static std::uint64_t twist(std::uint64_t high, std::uint64_t low, std::uint64_t far) {
        const std::uint64_t y = (high & kUpper) | (low & kLower);
        return far ^ (y >> 1) ^ ((0 - (y & 1)) & kMatrix);
    }

    // Each half reads only words the other half writes, so neither loop carries a dependency.
    void regenerate() {
        for (std::size_t k = 0; k < kN - kM; ++k)
            state_[k] = twist(state_[k], state_[k + 1], state_[k + kM]);
        for (std::size_t k = kN - kM; k < kN - 1; ++k)
            state_[k] = twist(state_[k], state_[k + 1], state_[k - (kN - kM)]);
        state_[kN - 1] = twist(state_[kN - 1], state_[0], state_[kM - 1]);
        next_ = 0;
    }

    std::array<std::uint64_t, kN> state_{};
    std::size_t next_ = kN;
};

}  // namespace hugetune::model
