#include "model/statistics.hpp"

#include <algorithm>

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

}  // namespace hugetune::model
