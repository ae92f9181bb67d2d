#include "model/statistics.hpp"

#include <algorithm>
#include <array>
#include <cassert>

namespace hugetune::model {

double median(std::vector<double> values) {
    if (values.empty())
        return 0;
    const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    if (values.size() % 2 == 1)
        return *mid;
    return (*std::max_element(values.begin(), mid) + *mid) / 2;
}

double quantile(std::vector<double> values, double q) {
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const double at = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(at);
    if (below + 1 >= values.size())
        return values.back();
    const double part = at - static_cast<double>(below);
    return values[below] + part * (values[below + 1] - values[below]);
}

double student_t_upper_5(int degrees_of_freedom) {
    assert(degrees_of_freedom >= 1);
    // The 0.95 quantiles of Student's t for 1..30 degrees of freedom.
    static constexpr std::array<double, 30> kQuantiles = {
        6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812,
        1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
        1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697};
    const auto at = static_cast<std::size_t>(std::clamp(degrees_of_freedom, 1, 30)) - 1;
    return kQuantiles[at];
}

}  // namespace hugetune::model
