// The runs of one SKU read and grouped by host: what answer_sku and check_hosts both start from.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/fleet/fleet.hpp"

namespace hugetune::model::fleet {

struct HostRuns {
    std::string host;
    std::vector<RunFacts> runs;  // oldest first
    // The other names its runs were stored under (docs/fleet.md "The host-name rule").
    std::vector<SameMachine> same_machine = {};
    // When `host` is a short name that two or more stored names begin with: those names. Which
    // machine it is cannot be told, so it is judged apart and left out of the fit.
    std::vector<std::string> short_name_of = {};
    // When these are the runs of another hardware identity than the first under their name.
    std::optional<NewHardware> new_hardware = {};
};

// Reads every run (an error names the run and the JSON path), checks they share one SKU key
// and groups them by host, in host name order, one machine one host: a short name joins the
// one stored name it is the first label of, a name whose runs carry two hardware identities is
// a host per identity (the later ones "NAME (hardware 2)" and on), and a host whose runs carry
// the same samples as an earlier host's joins that host, its runs taken once (docs/fleet.md
// "The host-name rule").
// Throws InputError when there are none. Errors are about `input`, a run's about its part
// "run <key> of host <host>".
std::vector<HostRuns> read_host_runs(const std::vector<FleetRun>& runs, const InputSource& input);
// The same, each run's facts moved out of `runs`.
std::vector<HostRuns> read_host_runs(std::vector<FleetRun>&& runs, const InputSource& input);

// read_host_runs a run at a time, as the database reads them (fleet_db's runs_of_sku with a
// callback): each run is read as it comes and joins its host's, so that a SKU's stored runs
// are never all held beside what is read of them.
class HostRunsReader {
  public:
    explicit HostRunsReader(InputSource input) : input_(std::move(input)) {}
    // Reads and checks the run, its facts moved out of it; errors as read_host_runs'.
    void add(FleetRun&& run);
    // What read_host_runs gives for the runs added, in the order they were added.
    std::vector<HostRuns> hosts() &&;
    const InputSource& input() const { return input_; }

  private:
    InputSource input_;
    std::map<std::string, HostRuns> by_host_;
    std::optional<SkuKey> key_;
};

// Every host's sweeps as one series per phase, each host's points together (host_ends), per
// page rescaled to the first host's pages per node, each point weighing 1 / the host's runs so
// that every host has the same say however often it was measured; machine facts from the first
// host, the boot pool the one most hosts' command lines ask for; its errors are about `input`.
SweepData pooled_sweep(const std::vector<HostRuns>& hosts, const InputSource& input);
// The same, the hosts taken: they are gone once it returns.
SweepData pooled_sweep(std::vector<HostRuns>&& hosts, const InputSource& input);

// The same, of each host's newest run alone: the hosts as they are now.
SweepData newest_sweep(const std::vector<HostRuns>& hosts, const InputSource& input);

// Keeps each host's newest run of each kernel release family (kernel_family_of, runs without a
// release one family): a host's older runs on a kernel it still runs are what it was, not what
// it is (docs/fleet.md "How a SKU's answer is made"). A dropped run's verifications go to the
// run kept in its place, ahead of its own: every boot still counts. `superseded`: how many runs
// were dropped. The runs must be oldest first; they stay so.
void keep_newest_per_family(std::vector<HostRuns>& hosts, int& superseded);

// Each of `hosts` against the others (docs/fleet.md "Outliers"), in the same order.
std::vector<HostCheck> check_host_runs(const std::vector<HostRuns>& hosts);

// The host's median log seconds per page of the alloc phase, per thread count per node, over
// all its runs: the one series every sweep has.
std::map<double, double> host_curve(const HostRuns& host);

// A host's newest run: whose kernel and firmware the host has now.
const RunFacts& newest(const HostRuns& host);

// The value most hosts have, absent when none has one or two values tie for most.
std::optional<std::string> most_common(const std::vector<std::optional<std::string>>& values);

}  // namespace hugetune::model::fleet
