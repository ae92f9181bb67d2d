#include "tuner/boot_sweep/plan.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "model/alloc_threads.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/kernel/boot_pool.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot_sweep {
namespace {

constexpr std::uint64_t kKbPerGib = 1024 * 1024;

bool replaced_by_step(const std::string& name, const BootSettings& settings) {
    auto is = [&](std::string_view known) { return same_param_name(name, known); };
    return is("hugepages") || is("hugepagesz") || is("default_hugepagesz") ||
           is("hugepage_alloc_threads") || (settings.init_on_alloc && is("init_on_alloc")) ||
           (settings.hugetlb_free_vmemmap && is("hugetlb_free_vmemmap"));
}

// Each value at most once: a value twice would boot the same setting twice as often as the
// other, which --repetitions does evenly.
void check_values(const std::vector<bool>& values, const std::string& setting) {
    if (values.size() > 2 || (values.size() == 2 && values[0] == values[1]))
        throw SettingError(setting, "gives a value twice; give each at most once");
}

void check_settings(const MachineFacts& facts, const Request& r) {
    check_values(r.init_on_alloc, "init_on_alloc");
    check_values(r.hugetlb_free_vmemmap, "hugetlb_free_vmemmap");
    // Without CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP (or a page size it can optimise) the kernel
    // has no HVO and no sysctl; hugetlb_free_vmemmap= would change nothing (docs/kernel-facts.md
    // "HVO"), so its boots would measure the same thing twice.
    if (!r.hugetlb_free_vmemmap.empty() && !facts.hvo_sysctl)
        throw UnsupportedError(
            "kernel " + facts.kernel_release +
            " has no HVO (no /proc/sys/vm/hugetlb_optimize_vmemmap: built without "
            "CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP), so hugetlb_free_vmemmap= changes nothing; "
            "leave " +
            Flag{"hugetlb_free_vmemmap"} + " out (keep)");
}

const char* lockdown_name(LockdownMode mode) {
    return mode == LockdownMode::confidentiality ? "confidentiality" : "integrity";
}

// Each step is a kexec_load() of the running kernel's unsigned image (`kexec -l`): a kernel that
// refuses it would let `plan` pass and `start` fail only at the load.
[[noreturn]] void unreadable_sysctl(std::string_view name, const KexecSysctl& sysctl,
                                    std::string_view expected) {
    throw UnsupportedError("/proc/sys/kernel/" + std::string(name) + " holds '" +
                           printable_text(sysctl.text) + "', not " + std::string(expected) +
                           ", so whether kexec may load every step's kernel is unknown; read it "
                           "on the machine itself, or measure with 'hugetune run'");
}

void check_kexec_allowed(const MachineFacts& facts) {
    const auto& disabled = facts.kexec_load_disabled;
    if (disabled && (!disabled->value || (*disabled->value != 0 && *disabled->value != 1)))
        unreadable_sysctl("kexec_load_disabled", *disabled, "0 or 1");
    if (disabled && *disabled->value == 1)
        throw UnsupportedError(
            "kexec is switched off on this kernel (/proc/sys/kernel/kexec_load_disabled is 1, "
            "which only a reboot clears): the boot sweep boots each step by kexec; boot without "
            "the setting, or measure with 'hugetune run'");
    if (facts.lockdown && *facts.lockdown != LockdownMode::none)
        throw UnsupportedError(
            std::string("the kernel is locked down (") + lockdown_name(*facts.lockdown) +
            ", /sys/kernel/security/lockdown), which refuses the unsigned kexec load ('kexec "
            "-l') every step makes; 'kexec -s' would load only an image whose signature the "
            "kernel verifies, which the boot sweep does not use; boot a kernel without lockdown "
            "(no lockdown= on its command line; with a distribution kernel, Secure Boot off), "
            "or measure with 'hugetune run'");
}

// kexec_load_limit_reboot (docs/kernel-facts.md "kexec switched off"): -1 lets any number of
// loads through; N lets N more, each load taking one, and it never rises again until a reboot.
// Every step loads a kernel once, so N below the steps would stop the sweep halfway.
void check_kexec_loads(const MachineFacts& facts, std::size_t steps) {
    const auto& limit = facts.kexec_load_limit_reboot;
    if (!limit)
        return;
    if (!limit->value || *limit->value < -1)
        unreadable_sysctl("kexec_load_limit_reboot", *limit, "-1 or a count of loads");
    if (*limit->value == -1 || static_cast<std::uint64_t>(*limit->value) >= steps)
        return;
    throw UnsupportedError(
        "/proc/sys/kernel/kexec_load_limit_reboot allows " + std::to_string(*limit->value) +
        " more kexec load(s) until the next boot, and the boot sweep needs " +
        std::to_string(steps) +
        " (one per step); only a reboot raises it: boot without the limit, sweep fewer steps (" +
        Flag{"threads"} + ", " + Flag{"repetitions"} + "), or measure with 'hugetune run'");
}

void check_kernel(const MachineFacts& facts, const Request& r) {
    const auto honours = release_honours_alloc_threads(facts.kernel_release);
    if (!honours.value_or(false))
        throw UnsupportedError("kernel " + facts.kernel_release +
                               " does not take hugepage_alloc_threads= (Linux 6.15 and later "
                               "do); boot a 6.15 or later kernel first");
    if (!facts.kexec_found)
        throw UnsupportedError(
            "kexec not found (on PATH, or under " + Flag{"root"} +
            " in the tree's /usr/sbin, /usr/bin, /sbin or /bin); install it (Debian: apt-get "
            "install kexec-tools)");
    check_kexec_allowed(facts);
    if (!facts.kernel_image)
        throw SettingError("kernel_image",
                           "the running kernel's image was not found (looked for "
                           "/boot/vmlinuz-" +
                               facts.kernel_release + "); name the image of this kernel");
    if (!facts.initrd && !r.no_initrd)
        throw SettingError("initrd", "no initrd found for kernel " + facts.kernel_release +
                                         " (looked for " + facts.initrd_looked_for +
                                         "); name it, or 'none' for a kernel that boots "
                                         "without one");
}

std::uint64_t requested_pages(const MachineFacts& facts, const Request& r) {
    if (facts.page_sizes.gigantic(r.page_size_kb))
        throw SettingError(
            "page_size",
            page_size_text(r.page_size_kb, SizeStyle::cmdline) +
                " pages are gigantic on this kernel (above its buddy allocator's largest "
                "block, " +
                page_size_text(facts.page_sizes.largest_buddy_block_kb, SizeStyle::cmdline) +
                "): it allocates them in a serial loop and logs no allocation line; use " +
                page_size_text(facts.page_sizes.default_size_kb, SizeStyle::cmdline) +
                " or another size up to the largest block");
    if (r.pages && r.gib)
        throw SettingError("pages", "give the pool in pages or in GiB, not both");
    if (r.pages) {
        if (*r.pages == 0)
            throw SettingError("pages", "must be at least 1");
        return *r.pages;
    }
    if (r.gib) {
        if (!(*r.gib > 0) || !std::isfinite(*r.gib))
            throw SettingError("gib", "must be above 0");
        return static_cast<std::uint64_t>(std::ceil(*r.gib * static_cast<double>(kKbPerGib) /
                                                    static_cast<double>(r.page_size_kb)));
    }
    const auto cmdline = parse_kernel_cmdline(facts.original_cmdline);
    if (const auto pool =
            threaded_request(read_boot_requests(cmdline, facts.page_sizes.default_size_kb),
                             facts.page_sizes, r.page_size_kb);
        pool && pool->size_kb == r.page_size_kb && pool->pages > 0)
        return pool->pages;
    throw SettingError("pages", "the command line requests no " +
                                    page_size_text(r.page_size_kb, SizeStyle::cmdline) +
                                    " pool to measure; give the pool size in pages or GiB");
}

void check_pool_fits(const MachineFacts& facts, std::uint64_t pages, std::uint64_t page_size_kb) {
    const double pool_bytes = static_cast<double>(pages) * static_cast<double>(page_size_kb) * 1024;
    const double limit = static_cast<double>(facts.memory_total_bytes) * kMaxPoolMemoryFraction;
    if (pool_bytes > limit)
        throw RuntimeError("the pool of " + std::to_string(pages) + " pages (" +
                           decimals_text(pool_bytes / (kKbPerGib * 1024.0), 1) +
                           " GiB) does not fit in " + percent_text(kMaxPoolMemoryFraction) +
                           " of the memory (" + decimals_text(limit / (kKbPerGib * 1024.0), 1) +
                           " GiB); give a smaller pool");
}

std::vector<int> chosen_threads(const MachineFacts& facts, const Request& r) {
    if (r.threads.empty())
        return default_thread_totals(facts.nodes, facts.online_cpus);
    std::set<int> unique;
    for (int t : r.threads) {
        if (t < 1 || t > facts.online_cpus)
            throw SettingError("threads", std::to_string(t) + " is not between 1 and the " +
                                              std::to_string(facts.online_cpus) +
                                              " online CPUs; give totals within them");
        unique.insert(t);
    }
    return {unique.begin(), unique.end()};
}

double estimate_seconds(const Plan& plan) {
    const double pool_gib =
        static_cast<double>(plan.pages * plan.page_size_kb) / static_cast<double>(kKbPerGib);
    double seconds = 0;
    for (const Step& s : plan.steps)
        seconds += kBootOverheadSeconds + pool_gib / (kGibPerSecondPerThread * s.threads);
    return seconds + kBootOverheadSeconds;  // the boot back to the original command line
}

// Nothing in `values`: one entry of nothing (kept as the command line has it).
std::vector<std::optional<bool>> or_kept(const std::vector<bool>& values) {
    if (values.empty())
        return {std::nullopt};
    return {values.begin(), values.end()};
}

}  // namespace

std::string settings_text(const BootSettings& settings) {
    return std::string("init_on_alloc") +
           (settings.init_on_alloc ? (*settings.init_on_alloc ? "=1" : "=0") : " as booted") +
           ", hugetlb_free_vmemmap" +
           (settings.hugetlb_free_vmemmap ? (*settings.hugetlb_free_vmemmap ? "=on" : "=off")
                                          : " as booted");
}

std::vector<BootSettings> plan_settings(const Plan& plan) {
    std::vector<BootSettings> all;
    for (const auto ioa : or_kept(plan.init_on_alloc))
        for (const auto hvo : or_kept(plan.hugetlb_free_vmemmap))
            all.push_back({ioa, hvo});
    return all;
}

std::string step_cmdline(const std::string& original, std::uint64_t page_size_kb,
                         std::uint64_t pages, int threads, const BootSettings& settings) {
    KernelCmdline cmdline = parse_kernel_cmdline(original);
    std::erase_if(cmdline.params,
                  [&](const CmdlineParam& p) { return replaced_by_step(p.name, settings); });
    std::vector<std::string> added = {
        "hugepagesz=" + page_size_text(page_size_kb, SizeStyle::cmdline),
        "hugepages=" + std::to_string(pages),
        alloc_threads_setting(static_cast<std::uint64_t>(threads))};
    if (settings.init_on_alloc)
        added.push_back(std::string("init_on_alloc=") + (*settings.init_on_alloc ? "1" : "0"));
    if (settings.hugetlb_free_vmemmap)
        added.push_back(std::string("hugetlb_free_vmemmap=") +
                        (*settings.hugetlb_free_vmemmap ? "on" : "off"));
    for (auto& token : added)
        cmdline.params.push_back(parse_kernel_cmdline(token).params.front());
    return cmdline_text(cmdline);
}

std::vector<Step> plan_steps(const Plan& plan) {
    // Repetition by repetition, so that a drift over the hours of the sweep (temperature,
    // firmware state) spreads over every setting and thread count instead of biasing one.
    std::vector<Step> steps;
    const std::vector<BootSettings> settings = plan_settings(plan);
    for (int rep = 1; rep <= plan.repetitions; ++rep)
        for (const BootSettings& set : settings)
            for (int t : plan.threads)
                steps.push_back(
                    {t, rep,
                     step_cmdline(plan.original_cmdline, plan.page_size_kb, plan.pages, t, set),
                     set});
    return steps;
}

std::vector<int> default_thread_totals(int nodes, int online_cpus) {
    std::set<int> totals;
    for (int per_node : {1, 2, 4, 8, 16, 32})
        totals.insert(std::min(per_node * nodes, online_cpus));
    totals.insert(kernel_default_alloc_threads(online_cpus));
    return {totals.begin(), totals.end()};
}

Plan make_plan(const MachineFacts& facts, const Request& asked) {
    Request request = asked;
    if (request.page_size_kb == 0)
        request.page_size_kb = facts.page_sizes.default_size_kb;
    if (request.repetitions < 1 || request.repetitions > kMaxRepetitions)
        throw SettingError("repetitions",
                           "must be between 1 and " + std::to_string(kMaxRepetitions));
    check_kernel(facts, request);
    check_settings(facts, request);
    Plan plan;
    plan.pages = requested_pages(facts, request);
    check_pool_fits(facts, plan.pages, request.page_size_kb);
    plan.threads = chosen_threads(facts, request);
    plan.kernel_release = facts.kernel_release;
    plan.kernel_image = *facts.kernel_image;
    plan.initrd = request.no_initrd ? std::nullopt : facts.initrd;
    plan.original_cmdline = cmdline_text(parse_kernel_cmdline(facts.original_cmdline));
    plan.page_size_kb = request.page_size_kb;
    plan.nodes = facts.nodes;
    plan.online_cpus = facts.online_cpus;
    plan.init_on_alloc = request.init_on_alloc;
    plan.hugetlb_free_vmemmap = request.hugetlb_free_vmemmap;
    plan.repetitions = request.repetitions;
    plan.steps = plan_steps(plan);
    check_kexec_loads(facts, plan.steps.size());
    plan.estimated_seconds = estimate_seconds(plan);
    return plan;
}

std::string format_plan(const Plan& plan) {
    std::ostringstream s;
    const std::vector<BootSettings> settings = plan_settings(plan);
    s << "boot sweep of kernel " << plan.kernel_release << ": " << plan.pages << " pages of "
      << page_size_text(plan.page_size_kb, SizeStyle::cmdline) << ", "
      << count_text(plan.steps.size(), "boot") << " by kexec ("
      << count_text(plan.threads.size(), "thread count") << " x ";
    if (settings.size() > 1)
        s << settings.size() << " settings x ";
    s << count_text(plan.repetitions, "repetition") << ")\n";
    if (settings.size() > 1)
        for (std::size_t i = 0; i < settings.size(); ++i)
            s << "setting " << i + 1 << ": " << settings_text(settings[i]) << "\n";
    s << "kernel " << plan.kernel_image << ", initrd " << plan.initrd.value_or("(none)") << "\n";
    s << "original command line: " << plan.original_cmdline << "\n";
    for (std::size_t i = 0; i < plan.steps.size(); ++i)
        s << "step " << i + 1 << ": " << plan.steps[i].cmdline << "\n";
    s << "estimated time: about " << static_cast<long>(std::ceil(plan.estimated_seconds / 60))
      << " minutes (" << seconds_text(kBootOverheadSeconds) << " a boot plus the allocation)\n";
    return s.str();
}

}  // namespace hugetune::boot_sweep
