// Order statistics every layer uses on measured times: the sweep's points, the boot sweep's
// boots, the fits' resamples and the fleet's hosts.
#pragma once

#include <vector>

namespace hugetune::model {

// The middle value, the mean of the two middle values for an even count; 0 for no values.
double median(std::vector<double> values);

// The q-quantile (0..1) by linear interpolation between the order statistics (the median at
// 0.5 for an odd count); 0 for no values.
double quantile(std::vector<double> values, double q);

}  // namespace hugetune::model
