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

// The value Student's t with `degrees_of_freedom` exceeds with probability 5% (the one-sided 5%
// critical value): exact to three decimals up to 30 degrees of freedom, and the value at 30 above
// it (1.697, a little above the limit 1.645, so a test that uses it errs toward "not shown").
// Requires degrees_of_freedom >= 1.
double student_t_upper_5(int degrees_of_freedom);

}  // namespace hugetune::model
