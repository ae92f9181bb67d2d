#include "model/fleet/host_runs.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <span>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "model/fleet/boots.hpp"
#include "model/fleet/host_name.hpp"
#include "model/fleet/same_samples.hpp"
#include "model/parallel.hpp"

namespace hugetune::model::fleet {
namespace {

// Per page, at the series' pages per node, like points of one sweep (sweep_json.cpp), each
// point's weight times `weight`.
void append_points(PhaseSeries& to, const PhaseSeries& from, double weight) {
    const double scale = from.pages_per_node > 0 ? to.pages_per_node / from.pages_per_node : 1.0;
    for (const auto& p : from.points)
        to.points.push_back({p.threads_per_node, p.seconds * scale, p.weight * weight});
}

std::optional<std::uint64_t> most_common_pool(const std::vector<HostRuns>& hosts) {
    std::map<std::uint64_t, int> counts;
    for (const auto& h : hosts)
        if (const auto pages = newest(h).sweep.machine.boot_pool_pages)
            ++counts[*pages];
    if (counts.empty())
        return std::nullopt;
    return std::max_element(counts.begin(), counts.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
}

// The name of the host that a name's `nth` hardware identity (from 2) is counted as.
std::string hardware_host_name(const std::string& name, std::size_t nth) {
    return name + " (hardware " + std::to_string(nth) + ")";
}

// The identities of `runs` in their order, each once.
std::vector<IdentityKey> identities_of(const std::vector<RunFacts>& runs) {
    std::vector<IdentityKey> identities;
    for (const auto& run : runs)
        if (run.hardware &&
            std::find(identities.begin(), identities.end(), *run.hardware) == identities.end())
            identities.push_back(*run.hardware);
    return identities;
}

// The runs of one name as hosts by hardware identity: the runs of the identity that ran first
// and those without one keep the name; each other identity's runs, in the order they first
// ran, are a host of their own, hardware_host_name's, marked with the change. Nothing when the
// name's runs carry one identity at most.
std::vector<HostRuns> split_host_by_hardware(HostRuns& host) {
    if (identities_of(host.runs).size() < 2)
        return {};
    std::stable_sort(host.runs.begin(), host.runs.end(), [](const RunFacts& a, const RunFacts& b) {
        return a.generated_at < b.generated_at;
    });
    const std::vector<IdentityKey> identities = identities_of(host.runs);
    std::vector<HostRuns> split(identities.size() - 1);
    std::vector<RunFacts> kept;
    for (auto& run : host.runs) {
        const auto nth = run.hardware
                             ? std::find(identities.begin(), identities.end(), *run.hardware) -
                                   identities.begin()
                             : 0;
        if (nth == 0) {
            kept.push_back(std::move(run));
            continue;
        }
        HostRuns& to = split[static_cast<std::size_t>(nth - 1)];
        if (to.runs.empty()) {
            to.host = hardware_host_name(host.host, static_cast<std::size_t>(nth + 1));
            to.new_hardware = NewHardware{host.host, run.generated_at, run.hardware->source,
                                          identities.front().source};
        }
        to.runs.push_back(std::move(run));
    }
    host.runs = std::move(kept);
    return split;
}

// Every name's runs split by hardware identity (docs/fleet.md "The host-name rule"): a name
// whose reports came from two machines (another machine's report renamed to it, a board
// replaced) is two hosts, each counted once. No stored name holds a blank, so the split hosts'
// names are no stored host's.
void split_by_hardware(std::map<std::string, HostRuns>& by_host) {
    std::vector<HostRuns> added;
    for (auto& [name, host] : by_host)
        for (auto& split : split_host_by_hardware(host))
            added.push_back(std::move(split));
    for (auto& host : added) {
        std::string name = host.host;
        by_host.emplace(std::move(name), std::move(host));
    }
}

// `from`'s runs and names into `into`, each run whose samples `into` already holds (bit for bit
// or within kSameSampleShare) left out: one machine's samples are taken once.
void absorb(HostRuns& into, HostRuns&& from, std::string reason) {
    for (auto& run : from.runs)
        if (std::none_of(into.runs.begin(), into.runs.end(), [&](const RunFacts& r) {
                return r.samples_digest == run.samples_digest || same_samples(r, run);
            }))
            into.runs.push_back(std::move(run));
    into.same_machine.push_back({from.host, std::move(reason)});
    for (auto& other : from.same_machine)
        into.same_machine.push_back(std::move(other));
}

// A short name (no dot) is the host whose name it is the first label of, when exactly one
// stored name is; of two or more, it stays apart, marked.
void join_short_names(std::map<std::string, HostRuns>& by_host) {
    FullNamesByLabel full_names;
    for (const auto& [name, host] : by_host)
        full_names.add(name);
    for (auto it = by_host.begin(); it != by_host.end();) {
        const auto& full = full_names.of(it->first);
        if (full.empty()) {
            ++it;
        } else if (full.size() > 1) {
            it->second.short_name_of = full;
            ++it;
        } else {
            absorb(by_host.at(full.front()), std::move(it->second),
                   "its short name, and no other stored name begins with it");
            it = by_host.erase(it);
        }
    }
}

// Why a host joins the one whose run `place` names: that run's samples are `run`'s bit for bit,
// or within kSameSampleShare (same_samples).
std::string same_samples_reason(const RunFacts& run, const std::vector<HostRuns>& out,
                                RunPlace place) {
    if (out[place.host].runs[place.run].samples_digest == run.samples_digest)
        return "its runs carry the same samples, bit for bit: one machine reported under two "
               "names";
    static_assert(kSameSampleShare == 1e-6, "the words below say a part in a million");
    return "its runs carry the same samples, each within a part in a million (the same thread "
           "counts and repetitions): one machine's sweep reported under two names, its numbers "
           "nudged";
}

// In name order, a host any of whose runs carries the samples of an earlier host's run (bit for
// bit, or each within kSameSampleShare: same_samples) joins that host: one sweep, reported under
// two names. The runs are found through an index of their samples, not compared pair by pair.
std::vector<HostRuns> join_same_samples(std::map<std::string, HostRuns>& by_host) {
    std::vector<HostRuns> out;
    SameSamplesIndex index;
    for (auto& [name, host] : by_host) {
        std::optional<RunPlace> same;
        std::string reason;
        for (const auto& run : host.runs)
            if ((same = index.find(run, out))) {
                reason = same_samples_reason(run, out, *same);
                break;
            }
        const std::size_t owner = same ? same->host : out.size();
        const std::size_t held = same ? out[owner].runs.size() : 0;
        if (same)
            absorb(out[owner], std::move(host), std::move(reason));
        else
            out.push_back(std::move(host));
        for (std::size_t r = held; r < out[owner].runs.size(); ++r)
            index.add(out[owner].runs[r], {owner, r});
    }
    return out;
}

}  // namespace

std::vector<HostRuns> read_host_runs(const std::vector<FleetRun>& runs, const InputSource& input) {
    return read_host_runs(std::vector<FleetRun>(runs), input);
}

std::vector<HostRuns> read_host_runs(std::vector<FleetRun>&& runs, const InputSource& input) {
    HostRunsReader reader(input);
    for (auto& run : runs)
        reader.add(std::move(run));      // its shell goes now: the host's copy takes its space
    std::vector<FleetRun>().swap(runs);  // their facts moved out: the rest goes now
    return std::move(reader).hosts();
}

void HostRunsReader::add(FleetRun&& run) {
    RunFacts facts = read_stored_run(std::move(run), input_);
    run.facts.reset();
    if (key_ && !(facts.sku == *key_))
        throw InputError(input_, std::nullopt,
                         "run " + run.run_key + " of host " + facts.host + " is of SKU " +
                             to_string(facts.sku) + ", not " + to_string(*key_) +
                             "; give runs of one SKU");
    key_ = facts.sku;
    // The database hands a host's runs together and the hosts mostly in name order: the last
    // host, or one past it, is found without a search.
    auto at = by_host_.end();
    if (!by_host_.empty() && std::prev(at)->first == facts.host)
        --at;
    else if (by_host_.empty() || std::prev(at)->first < facts.host)
        at = by_host_.emplace_hint(at, facts.host, HostRuns{facts.host, {}});
    else
        at = by_host_.try_emplace(facts.host, HostRuns{facts.host, {}}).first;
    at->second.runs.push_back(std::move(facts));
}

std::vector<HostRuns> HostRunsReader::hosts() && {
    if (by_host_.empty())
        throw InputError(input_, std::nullopt, "no runs of this SKU; ingest reports first");
    join_short_names(by_host_);
    split_by_hardware(by_host_);
    std::vector<HostRuns> out = join_same_samples(by_host_);
    by_host_.clear();
    for (auto& host : out)
        std::stable_sort(
            host.runs.begin(), host.runs.end(),
            [](const RunFacts& a, const RunFacts& b) { return a.generated_at < b.generated_at; });
    return out;
}

const RunFacts& newest(const HostRuns& host) {
    return host.runs.back();
}

SweepData pooled_sweep(const std::vector<HostRuns>& hosts, const InputSource& input) {
    return pooled_sweep(std::vector<HostRuns>(hosts), input);
}

namespace {

// Gives the memory freed back to the system: a SKU's hosts, once pooled, are a few hundred MB
// of small blocks that the pooled series (a few large ones) cannot reuse.
void return_freed_memory() {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

// How many hosts pooled_sweep pools between two returns of the freed memory: a return walks
// every free block, so not after each host.
constexpr std::size_t kHostsBetweenReturns = 8192;
// Below this many hosts, pooling the phases on threads of their own costs more than it saves.
constexpr std::size_t kHostsPerPoolingThread = 1024;

}  // namespace

namespace {

// The runs of `host` that are pooled: all of them, or its newest alone.
std::span<const RunFacts> pooled_runs(const HostRuns& host, bool newest_only) {
    const std::span<const RunFacts> runs(host.runs);
    return newest_only ? runs.last(1) : runs;
}

// The pooled series' machine facts and pool, its points not yet added (room made for them).
SweepData start_pooled(const std::vector<HostRuns>& hosts, const InputSource& input,
                       bool newest_only) {
    SweepData pooled = newest(hosts.front()).sweep;
    pooled.input = input;
    pooled.machine.boot_pool_pages = most_common_pool(hosts);
    for (auto& series : pooled.phases) {
        std::size_t points = 0;
        for (const auto& host : hosts)
            for (const auto& run : pooled_runs(host, newest_only))
                for (const auto& from : run.sweep.phases)
                    if (from.phase == series.phase)
                        points += from.points.size();
        series.points.clear();
        series.points.reserve(points);
        series.host_ends.reserve(hosts.size());
    }
    pooled.notes.clear();
    return pooled;
}

// The pooled runs of `hosts` appended to one phase's series, with each host's end.
void pool_hosts(PhaseSeries& to, std::span<const HostRuns> hosts, bool newest_only) {
    for (const auto& host : hosts) {
        const auto runs = pooled_runs(host, newest_only);
        const double weight = 1.0 / static_cast<double>(runs.size());
        for (const auto& run : runs)
            for (const auto& from : run.sweep.phases)
                if (to.phase == from.phase)
                    append_points(to, from, weight);
        to.host_ends.push_back(to.points.size());
    }
}

// Each phase's series is its own: the phases are pooled side by side where the hosts are many.
void pool_phases(SweepData& pooled, std::span<const HostRuns> hosts, bool newest_only) {
    parallel_for(pooled.phases.size(), threads_for(hosts.size(), kHostsPerPoolingThread),
                 [&](std::size_t i) { pool_hosts(pooled.phases[i], hosts, newest_only); });
}

}  // namespace

SweepData pooled_sweep(std::vector<HostRuns>&& hosts, const InputSource& input) {
    SweepData pooled = start_pooled(hosts, input, false);
    // The hosts go pooled a share at a time, and what that share held goes back to the system
    // before the next: the pooled series (a few large blocks) cannot reuse their small ones, and
    // a SKU of 100,000 hosts would otherwise hold both whole at the end.
    for (std::size_t begin = 0; begin < hosts.size(); begin += kHostsBetweenReturns) {
        const std::size_t end = std::min(hosts.size(), begin + kHostsBetweenReturns);
        pool_phases(pooled, std::span<const HostRuns>(hosts).subspan(begin, end - begin), false);
        for (std::size_t h = begin; h < end; ++h)
            hosts[h] = HostRuns();
        return_freed_memory();
    }
    std::vector<HostRuns>().swap(hosts);
    return_freed_memory();
    pooled.complete = true;
    return pooled;
}

SweepData newest_sweep(const std::vector<HostRuns>& hosts, const InputSource& input) {
    SweepData pooled = start_pooled(hosts, input, true);
    pool_phases(pooled, hosts, true);
    pooled.complete = true;
    return pooled;
}

void keep_newest_per_family(std::vector<HostRuns>& hosts, int& superseded) {
    for (auto& h : hosts) {
        std::map<std::string, std::size_t> kept;  // family -> index of its newest run so far
        std::vector<RunFacts> runs;
        runs.reserve(h.runs.size());
        for (auto& run : h.runs) {
            const auto [at, first] =
                kept.try_emplace(kernel_family_of(run.kernel_release.value_or("")), runs.size());
            if (first) {
                runs.push_back(std::move(run));
                continue;
            }
            RunFacts& older = runs[at->second];
            run.verifications.insert(run.verifications.begin(),
                                     std::make_move_iterator(older.verifications.begin()),
                                     std::make_move_iterator(older.verifications.end()));
            older = std::move(run);
            ++superseded;
        }
        // The newest run last again: a family's run moved to where its first run stood.
        std::stable_sort(runs.begin(), runs.end(), [](const RunFacts& a, const RunFacts& b) {
            return a.generated_at < b.generated_at;
        });
        h.runs = std::move(runs);
    }
}

std::optional<std::string> most_common(const std::vector<std::optional<std::string>>& values) {
    std::map<std::string, int> counts;
    for (const auto& v : values)
        if (v)
            ++counts[*v];
    std::optional<std::string> best;
    int most = 0;
    bool tie = false;
    for (const auto& [value, count] : counts) {
        if (count > most) {
            best = value;
            most = count;
            tie = false;
        } else if (count == most) {
            tie = true;
        }
    }
    return tie ? std::nullopt : best;
}

}  // namespace hugetune::model::fleet
