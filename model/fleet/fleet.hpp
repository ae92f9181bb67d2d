// The fleet side of the model: the reports of many hosts of one SKU -> one answer for the SKU,
// and each host judged against its siblings. Pure functions over the report documents the fleet
// database hands back (model/documents/schema/report.schema.json); no I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/documents/fleet_answer.hpp"
#include "model/documents/report.hpp"
#include "model/documents/verification.hpp"
#include "model/errors.hpp"
#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"

namespace hugetune::model::fleet {

// The report's `sku` block (model/documents/report.hpp): hosts with the same key share one
// answer.
using SkuKey = model::SkuKey;
using model::IdentityKey;
using model::IdentitySource;

// "<microarch>/<nodes>n/<threads>t/<gib>g/<page kB>k/ioa<0|1>", e.g.
// "skylake/4n/28t/192g/2048k/ioa1": what `fleet recommend --sku` takes and every output prints.
// The last part is init_on_alloc off or on, absent when the report does not say.
std::string to_string(const SkuKey& key);
// The reverse of to_string; throws InputError about `input` naming the part that is wrong.
SkuKey parse_sku_key(std::string_view text, const InputSource& input = {});

// What one report holds that the fleet needs, read and checked.
struct RunFacts {
    std::string host;
    // FNV-1a of the sweep's samples, bit for bit (phase, threads per node, each repetition's
    // seconds): two hosts whose runs share it are one machine reported under two names.
    std::uint64_t samples_digest = 0;
    SkuKey sku;
    std::string generated_at;  // the report's ISO 8601 UTC time
    std::string tool_version;
    std::optional<std::string> kernel_release;
    std::optional<std::string> firmware;  // BIOS version and microcode, when the report has them
    // The report's hardware identity as the host-name rule compares it; nothing when it has none.
    std::optional<IdentityKey> hardware;
    SweepData sweep;  // the report's samples and machine facts, as `fit` reads a sweep
    Decision decision = Decision::set;
    int hugepage_alloc_threads = 1;
    double predicted_seconds = 0;
    double saving_seconds = 0;
    std::optional<double> confidence;
    // The codes the report's own facts give (judged_report_warnings), whatever its list says.
    std::vector<std::string> warning_codes;
    // Every verification of the run (`hugetune verify --report`: the kernel's own line against
    // the prediction), the report's own block first, then those the database stored.
    std::vector<Verification> verifications;
    // The boot pool the report's prediction is for (`run --boot-pages`, the command line, ...);
    // absent in a report that does not say.
    std::optional<ReportBootPool> boot_pool;
};

// What the fleet keeps of a whole report (read_report with need_run); throws InputError when the
// report's sweep cannot be fitted.
RunFacts read_run(const Report& report);

// Where the report's own warnings list differs from the codes its facts give (read_run's
// warning_codes, judged_report_warnings): "its warnings lack vm, which its own facts give", or
// nothing when they agree. A report hugetune wrote never differs.
std::optional<std::string> warnings_unlike_facts(const Report& report, const RunFacts& run);

// read_run of a document: read_report, then the above. Throws InputError naming the JSON path
// of the first problem in `input`; a document it accepts can be fitted.
RunFacts read_run(const nlohmann::json& document, const InputSource& input = {});

// The verified boots among one host's runs (oldest first), each boot once: a boot verified
// again, against another run or by another block, is its last verification. A block without a
// boot_id (a saved log) is told apart from the others by its content.
std::vector<Verification> verified_boots_of(const std::vector<RunFacts>& host_runs);

// One verification block as the database stored it, read (read_stored_verification).
struct FleetVerification {
    std::string key;  // the database's key of it, as `fleet runs` prints it
    Verification verification;
};

// A stored `verification` block of `host`'s run, as read_verification reads a report's, under
// its database key: a block this hugetune refuses is an InputError that says to forget it by
// that key.
Verification read_stored_verification(nlohmann::json block, const std::string& key,
                                      const std::string& host, const InputSource& input);

// One stored run as the database hands it back.
struct FleetRun {
    std::string host;
    std::string run_key;    // the database's key of the run (the report's content hash)
    nlohmann::json report;  // the whole document; the database stores it without a `verification`
    std::vector<FleetVerification> verifications = {};  // every one stored, oldest first
    // The report's facts as its digest keeps them (model/fleet/run_digest.hpp); when present,
    // they are what read_run makes of `report`, which is then not read (and may be null). Held
    // apart, so that taking them out of a SKU's runs leaves no copy of their size behind.
    std::shared_ptr<RunFacts> facts = {};
};

// read_run of the run's report (or its digest's facts), its stored verifications after the
// report's own block, the host the database names. Errors are about `input`'s part "run <key> of
// host <host>", a stored block's about "verification <key> of host <host>" with the fix that
// forgets it.
RunFacts read_stored_run(const FleetRun& run, const InputSource& input);
// The same, the run's facts moved out of it.
RunFacts read_stored_run(FleetRun&& run, const InputSource& input);

// The defaults of the options below, which `fleet skus`, `recommend`, `export` and `hosts` take
// (docs/fleet.md "Status").
inline constexpr int kDefaultMinHosts = 3;
inline constexpr double kDefaultMinConfidence = 0.8;

struct FleetOptions {
    RecommendOptions recommend;  // tolerance, seed, resamples
    // Fewer hosts in the fit: the answer "needs more hosts".
    int min_hosts = kDefaultMinHosts;
    // A confidence below this (or none estimated): not settled.
    double min_confidence = kDefaultMinConfidence;
    // Hosts check_hosts calls outliers are left out of the fit unless this is set.
    bool include_outliers = false;
    // Warning codes of kUnfitCodes that do not keep the answer from being settled.
    std::vector<std::string> accepted_warnings;
    // The boot pool the answer is for, in pages of the SKU's size; absent: the pool the hosts'
    // reports were made for (the most hosts' when they differ).
    std::optional<std::uint64_t> boot_pages;
    // How the answer's sentences name these options ("min_hosts", "min_confidence",
    // "accepted_warnings", "boot_pages") and apply's "report" to the user: the command line's
    // flags.
    SettingWords words;
};

// The rules' thresholds (docs/fleet.md "How a SKU's answer is made" and "Outliers").
// Hosts agree when each fitted host's median time per page, at the measured thread counts
// nearest the recommended value and the kernel default, lies within this factor of the hosts'
// median there. 1.25 is set against the test generator's hosts only (tests/support/
// fleet_generator.cpp, whose hosts' levels spread by a log standard deviation of 0.03 by
// default, FleetSpec::host_noise: 1.25 is about seven of them, and between four and five of the
// 0.05 consecutive runs of one machine spread by, which the false camp rate is measured with:
// docs/fleet.md "Outliers"); no real SKU's host-to-host spread has been measured, and one wider
// than that would make clean hosts disagree.
inline constexpr double kHostAgreementFactor = 1.25;
// Verified boots agree with the SKU's prediction while their median measured/predicted ratio
// lies within [low, high]: a judgement, tried only on the test generator's boots (their ratios
// spread by a log standard deviation of 0.04 around their SKU's, kRatioNoise); no real fleet's
// verified boots have been compared with their prediction.
inline constexpr double kVerificationRatioLow = 2.0 / 3.0;
inline constexpr double kVerificationRatioHigh = 1.5;
// Verified boots unsettle an answer (disagrees_with_verification) only when this many hosts made
// them: the median of three hosts' ratios is one no single host moves, as the outlier rule's
// deviations need kMinHostsToCompare hosts (docs/fleet.md "Status").
inline constexpr int kMinVerifiedHosts = 3;
// A host stands out when it lies more than this many robust deviations from its SKU's median.
inline constexpr double kOutlierDeviations = 3.5;
// The median absolute deviation times this estimates a normal standard deviation.
inline constexpr double kMadToSigma = 1.4826;
// The least spread, in natural log units, a robust deviation is measured in: hosts of one SKU
// that agree more closely than 2% are not told apart by chance wobbles of a few percent. The
// few percent are the test generator's (repetitions 0.02, hosts 0.03 in log standard deviation,
// tests/support/fleet_generator.cpp); a real SKU's have not been measured.
inline constexpr double kMinLogSpread = 0.02;
// Fewest hosts (with a value) for the robust deviations to mean anything.
inline constexpr int kMinHostsToCompare = 3;
// An outlier is a host that stands alone. When more hosts than the larger of these would be
// left out for their curves, slower or faster (more than 2, and more than a tenth of the SKU's
// hosts), each also lying beyond kHostAgreementFactor of the hosts' median at some thread count,
// they are a camp: the SKU's hosts do not agree on one curve, and the answer is hosts_disagree,
// never settled. Why these numbers: docs/fleet.md "Status", the camp rule.
inline constexpr int kMaxOutliers = 2;
inline constexpr double kMaxOutlierShare = 0.1;

// (value - median) / max(kMadToSigma * MAD, floor), for every value; all 0 below
// kMinHostsToCompare values.
std::vector<double> robust_deviations(const std::vector<double>& values, double floor);

struct SkuAnswer {
    SkuKey sku;
    int hosts = 0;  // every host of the SKU, excluded ones too
    int runs = 0;   // of every host
    // Runs left out of the fit because `apply --report` would refuse them (a warning of
    // kUnfitCodes the options do not accept): docs/fleet.md "How a SKU's answer is made".
    int refused_runs = 0;
    // Runs left out because a newer run of the same host and kernel release family stands for
    // them (docs/fleet.md "How a SKU's answer is made").
    int superseded_runs = 0;
    std::vector<ExcludedHost> excluded;
    // From every host's sweep fitted together; its uncertainty from a bootstrap that resamples
    // hosts, then each host's repetitions.
    Recommendation recommendation;
    std::string kernel_cmdline;  // "hugepage_alloc_threads=N"; empty when the default is kept
    int verified_boots = 0;
    // The median over verified hosts of each one's median measured/predicted ratio.
    std::optional<double> verification_ratio;
    FleetPool pool;                 // the boot pool the prediction is for
    std::optional<SkuBoots> boots;  // the hosts' recorded boots (judge_boots)
    // settled (or settled_by_boots) when `reasons` is empty, else the first reason's code.
    SkuStatus status = SkuStatus::needs_more_hosts;
    std::vector<StatusReason> reasons;  // every condition the answer fails, in the rules' order
    std::string status_reason;          // the sentences of `reasons`, or why it is settled
};

// All runs must share one SKU key; throws InputError about `runs_input` (what names the runs
// together) when they do not or none can be fitted.
// `boots`: the SKU's recorded boots, tallied; when they settle on another value than the sweeps,
// the answer is that value, settled_by_boots.
SkuAnswer answer_sku(const std::vector<FleetRun>& runs, const FleetOptions& options,
                     const InputSource& runs_input = {}, const BootTally& boots = {});
// The same, the runs' facts moved out of them: a SKU of 100,000 hosts is held once.
SkuAnswer answer_sku(std::vector<FleetRun>&& runs, const FleetOptions& options,
                     const InputSource& runs_input = {}, const BootTally& boots = {});

// The same, from the runs grouped by host (host_runs.hpp: read_host_runs, or a HostRunsReader
// that read them one at a time as the database hands them, so that a SKU of 100,000 hosts is
// never held as stored runs beside what is read of them). `boots` tallied for these hosts
// (boot_hosts.hpp).
struct HostRuns;
SkuAnswer answer_sku(std::vector<HostRuns>&& hosts, const FleetOptions& options,
                     const InputSource& runs_input, const BootTally& boots = {});
// The same, the boots asked for once, when the answer comes to them (after the fit): a caller
// that tallies them in the database meanwhile hands over what waits for that tally.
SkuAnswer answer_sku(std::vector<HostRuns>&& hosts, const FleetOptions& options,
                     const InputSource& runs_input, const std::function<BootTally()>& boots);

// Another name the same machine's runs were stored under, and why it is the same machine
// (docs/fleet.md "The host-name rule"): its runs are this host's, counted once.
struct SameMachine {
    std::string host;
    std::string reason;
};

// The runs of another hardware identity than the first under one host name, counted as a host
// of their own (docs/fleet.md "The host-name rule"): the name, the time of their first run, and
// the sources of their identity and of the name's first.
struct NewHardware {
    std::string host;
    std::string since;
    IdentitySource source = IdentitySource::none;
    IdentitySource first_source = IdentitySource::none;
};

// "hardware identity changed at the run of TIME (...): counted as a new host, apart from HOST's
// earlier runs", as `fleet hosts` says it.
std::string new_hardware_text(const NewHardware& change);

// One host against its SKU's other hosts.
struct HostCheck {
    std::string host;
    std::vector<SameMachine> same_machine;
    std::optional<NewHardware> new_hardware;  // set on the host its runs were split into
    int runs = 0;
    bool outlier = false;
    std::vector<std::string> reasons;       // one plain clause per reason; empty when clean
    std::optional<double> curve_deviation;  // in robust deviations (see fleet.cpp)
    // The most its time per page lies from its SKU's hosts' median at one thread count, as a
    // factor of 1 or more: what the camp rule weighs against kHostAgreementFactor.
    std::optional<double> curve_factor;
    std::optional<double> verification_ratio;
    std::optional<std::string> kernel_release;
    std::optional<std::string> firmware;
};

// Every host among `runs` (one SKU), in host name order; throws InputError as answer_sku does.
std::vector<HostCheck> check_hosts(const std::vector<FleetRun>& runs, const FleetOptions& options,
                                   const InputSource& runs_input = {});

// The answer as its document (model/documents/fleet_answer.hpp).
FleetAnswer fleet_answer(const SkuAnswer& answer);
nlohmann::json to_json(const SkuAnswer& answer);
nlohmann::json to_json(const HostCheck& check);

}  // namespace hugetune::model::fleet
