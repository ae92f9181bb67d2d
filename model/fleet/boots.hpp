// A SKU's boots (docs/fleet.md "Boots in the answer"): the kernel's own allocation times that
// the hosts recorded at their boots, per hugepage_alloc_threads value, beside the sweeps'
// prediction; the factor between the two; and, where the boots at two values or more, each from
// enough hosts, say another value than the recommended one is faster beyond the tolerance, that
// value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/recommend.hpp"

namespace hugetune::model::fleet {

// One stored boot of the SKU whose kernel logged the allocation line (fleet_db's boot_records).
struct SkuBoot {
    std::string host;
    std::string kernel_release;
    int threads = 0;
    double milliseconds = 0;
    std::uint64_t pool_pages = 0;
    std::optional<bool> hvo;
    std::string recorded_at = {};  // ISO 8601 UTC
    // Its record says it booted under a hypervisor (a record that does not say counts as
    // bare metal, as before records said it).
    bool in_vm = false;
    // Its host is a short name that two or more of the SKU's report names begin with: which
    // machine booted cannot be told (boot_hosts.hpp).
    bool ambiguous_host = false;
};

// The hosts a value's boots need before they count against another value; fewer say little
// about a SKU of many hosts (one slow host, one noisy boot).
inline constexpr int kMinBootHosts = 5;
// Resamples of the hosts for the calibration factor's interval, from a fixed seed: the same
// boots give the same interval.
inline constexpr int kCalibrationResamples = 200;

// What the statistics read of a SKU's boots, reduced where the boots are stored
// (docs/fleet.md "Boots at fleet size"): a database computes it with its own aggregates,
// tally_boots() from the boots in memory, and both give the same bits. Every median here is
// quantile(values, 0.5), the interpolation PostgreSQL's percentile_cont makes.

// The boots of one kernel release and HVO setting (an absent release is "").
struct BootGroup {
    std::string kernel_release;
    std::optional<bool> hvo;
    int boots = 0;
};

// The hosts that booted one kernel release family with one HVO setting: what chooses the group
// compared, so that one host booting often on another kernel moves nothing.
struct BootFamily {
    std::string kernel_family;
    std::optional<bool> hvo;
    int hosts = 0;
};

// Counts each family's hosts from the distinct (host, release, HVO) of the boots, given host
// by host (the rows of one host together): a host counts once per family, however many of its
// releases or boots the family holds.
class BootFamilyCounter {
  public:
    void add(const std::string& host, const std::string& kernel_release,
             const std::optional<bool>& hvo);
    std::vector<BootFamily> families();

  private:
    void end_host();
    std::string host_;
    std::vector<std::pair<std::string, int>> seen_;  // the current host's families
    std::vector<std::pair<std::pair<std::string, int>, int>> hosts_;
};

// One host's boots at one value: how many, and their median time per 1,000 pages.
struct HostBootMedian {
    std::string host;
    int threads = 0;
    int boots = 0;
    double ms_per_1000_pages = 0;
};

// The group the boots are compared within: the kernel release family (major.minor) and HVO
// setting most hosts booted; of a tie, the smaller family, then HVO unknown, off, on.
struct BootGroupChoice {
    std::string kernel_family;
    std::optional<bool> hvo;
    std::vector<std::string> kernel_releases;  // of `groups`, those of the family with that HVO
};

// One value's boots set aside, counted for the answer to say so, never compared: recorded in
// virtual machines, of hosts a report of the SKU knows (BootRefusal::virtual_machine), or under
// an ambiguous short name (BootRefusal::ambiguous_host).
struct SetAsideBoots {
    int threads = 0;
    int hosts = 0;
    int boots = 0;
};

struct BootTally {
    std::vector<BootGroup> groups;     // every boot counted, by release and HVO
    std::vector<BootFamily> families;  // every host counted, by release family and HVO
    BootGroupChoice compared;
    std::vector<HostBootMedian> host_medians;  // the compared boots, by value then host
    // The compared boots' median pool (pages) per value, in the order of the values.
    std::vector<std::pair<int, double>> pool_pages;
    // The values the SKU's canary plans tried, open or ended (fleet_db's canary_plans): values
    // the fleet asked for, beside the sweeps' own.
    std::vector<int> plan_values;
    std::vector<SetAsideBoots> virtual_boots;    // by value; in no group above
    std::vector<SetAsideBoots> ambiguous_boots;  // by value; in no group above, nor virtual_boots
};

// "6.15" of "6.15.2-cloud-amd64": the release family whose boots are compared together.
std::string kernel_family_of(const std::string& kernel_release);
// Nothing without families; the releases are those of `groups` in the family chosen.
std::optional<BootGroupChoice> choose_boot_group(const std::vector<BootFamily>& families,
                                                 const std::vector<BootGroup>& groups);
// A boot the statistics count: its kernel logged the line with threads and a pool, not in a
// virtual machine, under a host that is not ambiguous. Whose host a report of the SKU knows is
// for the caller to select (boots_of_hosts, fleet_db's tally and boots_of_sku do).
bool counts_as_boot(const SkuBoot& boot);
// The tally of boots held in memory (the database's own, fleet_db's boot_tally, is the other).
BootTally tally_boots(const std::vector<SkuBoot>& boots);

// One value's boots, each host's median first, so a host booted often has the same say.
struct BootValue {
    int threads = 0;
    int hosts = 0;
    int boots = 0;
    double ms_per_1000_pages = 0;                       // the hosts' median
    double low = 0, high = 0;                           // the hosts' 10% and 90% quantiles
    std::optional<double> predicted_ms_per_1000_pages;  // the sweeps' curve at this value
};

// Boots of one value set aside, and why (docs/fleet.md "What counts as evidence").
enum class BootRefusal {
    above_cpus,   // more threads than the SKU's CPUs: no such boot of this SKU
    not_asked,    // a value neither the sweeps measured nor a canary plan tried
    implausible,  // a host's time outside kMinPlausibleRatio..kMaxPlausibleRatio of the curve
    // booted in a virtual machine: the host's hypervisor backs guest memory its own way, and the
    // answer is fitted from bare-metal runs (the run rule refuses `vm`)
    virtual_machine,
    // recorded under a short name that two or more of the reports' names begin with: which
    // machine booted cannot be told (docs/fleet.md "The host-name rule")
    ambiguous_host,
};
struct RefusedBoots {
    int threads = 0;
    BootRefusal why = BootRefusal::not_asked;
    int hosts = 0;
    int boots = 0;
    std::string reason;  // one sentence
};

struct SkuBoots {
    // The boots compared: those of the kernel release family (major.minor) and HVO setting that
    // most boots were made with; the others are counted in `other_boots`.
    std::string kernel_family;
    std::optional<bool> hvo;
    int boots = 0;
    int hosts = 0;
    int other_boots = 0;
    // Of the compared boots, those that count for nothing (RefusedBoots), in `refused`; `boots`
    // and `hosts` above count the others.
    int refused_boots = 0;
    std::vector<RefusedBoots> refused;
    std::vector<BootValue> values;  // by thread count
    // The boots' time over the prediction: the median over hosts and values of each host's
    // median ratio, and its 5%..95% bootstrap interval over hosts. None without a prediction.
    std::optional<double> calibration, calibration_low, calibration_high;
    // The value the boots settle on, when they find one faster than the recommended value.
    std::optional<int> decided;
    // The value the boots find faster where the sweeps predict it slower beyond their interval
    // (or predict nothing), and too few hosts booted both it and the recommended value to
    // settle between them: the answer is disagrees_with_boots.
    std::optional<int> disputed;
    // Hosts with boots at both the recommended value and the faster one (a canary plan's hosts
    // have them), when the boots found one.
    int paired_hosts = 0;
    std::string reason;  // why they decide, or why they do not; one or two sentences
};

// Nothing when there are no boots. `recommended`: the sweeps' answer; each value's prediction is
// for the pool its boots allocated. `swept`: the kernel values (total threads) the SKU's sweeps
// measured, which the boots may be at, beside the recommended one, the kernel's default and the
// canary plans' (BootRefusal::not_asked); r.measured's when empty.
std::optional<SkuBoots> judge_boots(const BootTally& tally, const Recommendation& r,
                                    int recommended, double tolerance,
                                    const std::vector<int>& swept = {});
std::optional<SkuBoots> judge_boots(const std::vector<SkuBoot>& boots, const Recommendation& r,
                                    int recommended, double tolerance);

}  // namespace hugetune::model::fleet
