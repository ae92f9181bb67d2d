// The picture `fleet recommend --plot` draws of one SKU: its answer's predicted boot
// allocation (the fit over every host, its bootstrap band, the recommended and default values
// marked) above each host's own measured alloc phase, the outliers check_hosts finds marked.
#pragma once

#include <vector>

#include "model/documents/fleet_answer.hpp"
#include "model/fleet/fleet.hpp"
#include "model/fleet/host_runs.hpp"
#include "reports/plot.hpp"

namespace hugetune {

// `hosts` as read_host_runs gives them, `checks` as check_hosts judges them (by host name).
FleetPlotData fleet_plot_data(const model::fleet::FleetAnswer& answer,
                              const std::vector<model::fleet::HostRuns>& hosts,
                              const std::vector<model::fleet::HostCheck>& checks);

}  // namespace hugetune
