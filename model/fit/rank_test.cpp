#include "model/fit/rank_test.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace hugetune::model {
namespace {

constexpr std::size_t kExactLimit = 20;

// Twice U, so that ties stay integers: from the ranks of the pooled values (ties share their
// mean rank), U = (sum of the ranks of `higher`) - m (m + 1) / 2. Each side is sorted alone and
// the two are walked together, a group of equal values at a time: a count of a hundred thousand
// repetitions (a fleet's, millions) stays cheap.
long twice_u(std::span<const double> higher, std::span<const double> lower) {
    std::vector<double> h(higher.begin(), higher.end()), l(lower.begin(), lower.end());
    std::sort(h.begin(), h.end());
    std::sort(l.begin(), l.end());
    long twice_rank_sum = 0;
    std::size_t a = 0, b = 0;
    for (std::size_t i = 0; a < h.size() || b < l.size();) {
        // The least value left, taken at once so that the walk moves on whatever it holds.
        const bool higher_first = b == l.size() || (a < h.size() && h[a] < l[b]);
        const double value = higher_first ? h[a++] : l[b++];
        std::size_t from_higher = higher_first ? 1 : 0, from_lower = higher_first ? 0 : 1;
        for (; a < h.size() && h[a] == value; ++a)
            ++from_higher;
        for (; b < l.size() && l[b] == value; ++b)
            ++from_lower;
        const std::size_t j = i + from_higher + from_lower;
        // Ranks i + 1 .. j share their mean, (i + 1 + j) / 2.
        twice_rank_sum += static_cast<long>(from_higher) * static_cast<long>(i + 1 + j);
        i = j;
    }
    const long m = static_cast<long>(higher.size());
    return twice_rank_sum - m * (m + 1);
}

// Under the null hypothesis every ordering of the m + n values is equally likely; ways[m][n][u]
// counts the orderings of m and n values with U = u, built one value at a time: the largest
// value belongs to the first set (it lies above all n of the second: U grows by n) or to the
// second (U unchanged).
double exact_upper_tail(std::size_t m, std::size_t n, double u) {
    const std::size_t top = m * n;
    std::vector<std::vector<std::vector<double>>> ways(
        m + 1, std::vector<std::vector<double>>(n + 1, std::vector<double>(top + 1, 0.0)));
    for (std::size_t i = 0; i <= m; ++i)
        for (std::size_t j = 0; j <= n; ++j) {
            if (i == 0 || j == 0) {
                ways[i][j][0] = 1;
                continue;
            }
            for (std::size_t k = 0; k <= i * j; ++k)
                ways[i][j][k] = (k >= j ? ways[i - 1][j][k - j] : 0.0) + ways[i][j - 1][k];
        }
    double total = 0, tail = 0;
    for (std::size_t k = 0; k <= top; ++k) {
        total += ways[m][n][k];
        if (static_cast<double>(k) >= u - 1e-9)
            tail += ways[m][n][k];
    }
    return tail / total;
}

double normal_upper_tail(std::size_t m, std::size_t n, double u) {
    const double md = static_cast<double>(m), nd = static_cast<double>(n);
    const double mean = md * nd / 2;
    const double sd = std::sqrt(md * nd * (md + nd + 1) / 12);
    const double z = (u - 0.5 - mean) / sd;
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}

}  // namespace

double rank_test_p_value(std::span<const double> higher, std::span<const double> lower) {
    const std::size_t m = higher.size(), n = lower.size();
    if (m == 0 || n == 0)
        return 1.0;
    // A tie makes U a half-integer; the exact tail is taken from the next whole value up.
    const double u = std::ceil(static_cast<double>(twice_u(higher, lower)) / 2);
    if (m <= kExactLimit && n <= kExactLimit)
        return exact_upper_tail(m, n, u);
    return normal_upper_tail(m, n, u);
}

bool stands_above(std::span<const double> higher, std::span<const double> lower) {
    return rank_test_p_value(higher, lower) <= kRankTestLevel + 1e-12;
}

}  // namespace hugetune::model
