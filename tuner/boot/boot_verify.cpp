#include "tuner/boot/boot_verify.hpp"

#include <algorithm>
#include <tuple>

#include "model/alloc_threads.hpp"
#include "model/boot_plausibility.hpp"
#include "model/text.hpp"
#include "tuner/kernel/boot_pool.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot {
namespace {

// What the log says about the boot it holds, with the command line given for it.
struct Boot {
    std::vector<std::string> messages;  // the last boot's
    BootLogContext context;
    KernelCmdline cmdline;
    std::optional<std::string> release;
    std::optional<int> online_cpus;
    std::optional<int> online_nodes;
    model::PageSizeFacts page_sizes;  // the machine's: a log does not say them
};

Boot read_boot(const VerifyInput& in) {
    Boot b;
    b.messages = in.log;
    b.context = read_boot_log_context(b.messages);
    b.cmdline = parse_kernel_cmdline(in.cmdline);
    b.page_sizes = in.page_sizes;
    b.release = b.context.release ? b.context.release : in.release;
    b.online_cpus = b.context.online_cpus ? b.context.online_cpus : in.online_cpus;
    b.online_nodes = b.context.online_nodes ? b.context.online_nodes : in.online_nodes;
    return b;
}

// The boot-pool parameters of a command line as the kernel takes them (the thread count by
// kstrtoul, 0 or unparsable being none; init_on_alloc by kstrtobool; default_hugepagesz by
// memparse), to tell whether two describe the same boot however each is spelled.
bool same_boot_request(const KernelCmdline& a, const KernelCmdline& b, std::uint64_t default_kb) {
    auto taken = [](const KernelCmdline& c) {
        const auto threads = kernel_alloc_threads(c).threads;
        auto ioa = c.last("init_on_alloc");
        auto size = c.last("default_hugepagesz");
        return std::tuple(threads, ioa ? parse_kernel_bool(*ioa) : std::nullopt,
                          size ? parse_memsize_kb(*size) : std::nullopt);
    };
    if (taken(a) != taken(b))
        return false;
    auto requests = [default_kb](const KernelCmdline& c) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
        for (const auto& r : read_boot_requests(c, default_kb))
            out.emplace_back(r.size_kb, r.pages);
        return out;
    };
    return requests(a) == requests(b);
}

// Problems of the command line itself: a value the kernel ignores, not the applied value, not
// the command line the log says was booted.
std::optional<std::uint64_t> check_cmdline(const VerifyInput& in, const Boot& boot,
                                           VerifyResult& r) {
    const auto setting = kernel_alloc_threads(boot.cmdline);
    r.cmdline_value = setting.shown();
    const std::optional<std::uint64_t> in_force = setting.threads;
    // An unparsable value or 0 leaves the kernel's count as it was (docs/kernel-facts.md
    // "Parsing the value"): only when none is accepted does the default stay.
    if (!in_force && r.cmdline_value)
        r.problems.push_back(
            {"threads_ignored", "the command line has hugepage_alloc_threads=" + *r.cmdline_value +
                                    ", which the kernel ignores"});
    if (in.applied && in_force != in.applied)
        r.problems.push_back(
            {"not_applied",
             "the running kernel's command line has " +
                 (r.cmdline_value ? "hugepage_alloc_threads=" + *r.cmdline_value
                                  : std::string("no hugepage_alloc_threads=")) +
                 ", not the applied " + std::to_string(*in.applied) +
                 "; the boot entries were not regenerated, or another entry was booted"});
    if (boot.context.cmdline && !same_boot_request(parse_kernel_cmdline(*boot.context.cmdline),
                                                   boot.cmdline, in.page_sizes.default_size_kb))
        r.problems.push_back(
            {"cmdline_mismatch", "the log's boot had the command line '" + *boot.context.cmdline +
                                     "', which asks for another boot pool or thread count than "
                                     "the command line given"});
    return in_force;
}

// Why the allocation line is missing, the most specific reason first.
std::vector<Problem> missing_line_reasons(const Boot& boot, bool pool_requested,
                                          const VerifyInput& in) {
    auto reasons =
        alloc_threads_problems(boot_pool_facts(boot.cmdline, boot.page_sizes), boot.release);
    if (!reasons.empty())
        return reasons;
    if (boot.messages.empty())
        return {{"no_log", "no kernel log could be read (" + in.log_unread +
                               "); give the log with " + in.words("log") + " FILE"}};
    for (const auto& l : boot.messages)
        if (l.find("HugeTLB: allocating") != std::string::npos &&
            l.find("failed") != std::string::npos)
            return {{"allocation_failed", "the boot pool allocation failed: '" + l + "'"}};
    // The first boot messages ("Linux version ...", "Command line: ...") are still there
    // unless the ring buffer wrapped or the journal was rotated.
    if (!boot.context.release && !boot.context.cmdline)
        return {{"log_truncated",
                 "the log no longer reaches back to the start of the boot (ring buffer "
                 "overwritten or journal rotated), so the line is lost; keep a "
                 "persistent journal or save dmesg right after boot and pass " +
                     in.words("log")}};
    if (in.log_left_out > 0)
        return {{"no_allocation_line",
                 "the first " + std::to_string(boot.messages.size()) +
                     " messages of the boot, all that is read of it, hold no allocation line "
                     "for the pool (the kernel logs it within the boot's first seconds); " +
                     std::to_string(in.log_left_out) + " later messages were left out"}};
    if (pool_requested && !find_boot_allocation_lines(boot.messages).empty())
        return {{"no_allocation_line",
                 "the log's allocation lines are for other page sizes or for an empty pool, "
                 "none measures the requested pool"}};
    return {{"no_allocation_line",
             "the log holds the whole boot but no allocation line, although the "
             "command line requests a threaded boot pool on a 6.15+ kernel"}};
}

// Why the kernel's line shows `shown` threads where the command line asks for `asked`
// (docs/kernel-facts.md "The thread count in the log line").
std::string threads_mismatch_reason(std::uint64_t shown, std::uint64_t asked,
                                    std::optional<int> cpus) {
    std::string s = "the kernel used " + std::to_string(shown) +
                    " threads although the command line asks for " + std::to_string(asked);
    if (cpus && *cpus > 0 &&
        shown == static_cast<std::uint64_t>(kernel_default_alloc_threads(*cpus)))
        return s + ", which is the kernel's default max(1, " + std::to_string(*cpus) +
               " CPUs / 4): the booted kernel did not take the parameter, so the command line "
               "given is not the one booted";
    if (cpus && *cpus > 0 && shown == static_cast<std::uint64_t>(*cpus) && asked > shown)
        return s +
               ", the CPU count of that boot: this kernel caps the value at the CPUs "
               "(mainline Linux logs the value it was given)";
    return s +
           ": the log and the command line are not of the same boot, or this kernel "
           "changes the value";
}

// The pages the kernel's lines say it allocated: its registered count, else a shortfall's,
// else the request's.
// Whether the boot zeroed each page it allocated: the log's "mem auto-init" line, else
// init_on_alloc= on the command line (docs/kernel-facts.md "What a boot allocation costs").
std::optional<bool> booted_init_on_alloc(const Boot& boot) {
    if (boot.context.init_on_alloc)
        return boot.context.init_on_alloc;
    if (auto v = boot.cmdline.last("init_on_alloc"))
        return parse_kernel_bool(*v);
    return std::nullopt;
}

// HVO as booted: hugetlb_free_vmemmap= on the command line, else the sysctl now, which starts
// at the kernel's configured default.
std::optional<bool> booted_hvo(const Boot& boot, const VerifyInput& in) {
    if (auto v = boot.cmdline.last("hugetlb_free_vmemmap"))
        return parse_kernel_bool(*v);
    return in.hvo_now;
}

BootedPool booted_pool(const Boot& boot, const BootRequest& request) {
    BootedPool pool{request.pages, request.size_kb, booted_init_on_alloc(boot)};
    for (const auto& shortfall : find_pool_shortfalls(boot.messages))
        if (shortfall.size_kb == request.size_kb)
            pool.pages = shortfall.allocated_pages;
    for (const auto& registered : find_registered_pools(boot.messages))
        if (registered.size_kb == request.size_kb)
            pool.pages = registered.pages;
    return pool;
}

// The kernel's own word that it allocated fewer pages than asked (docs/kernel-facts.md "A pool
// short of its request"): the time is then of another pool than the one applied for.
std::optional<Problem> shortfall_problem(const Boot& boot, const BootRequest& request) {
    for (const auto& s : find_pool_shortfalls(boot.messages))
        if (s.size_kb == request.size_kb)
            return Problem{"pool_shortfall",
                           "the kernel allocated only " + std::to_string(s.allocated_pages) +
                               " of the " + std::to_string(s.asked_pages) + " pages of " +
                               page_size_text(s.size_kb) + " asked for ('" + s.text +
                               "'): the boot had too little free memory for the pool; ask "
                               "for at most " +
                               std::to_string(s.allocated_pages) +
                               " with hugepages=, or free the memory other reservations take"};
    return std::nullopt;
}

// A zeroed pool takes the kernel a least time (docs/kernel-facts.md "The least time a zeroed
// boot pool takes"); a line below it is not of this pool's allocation.
std::optional<Problem> time_problem(const Boot& boot, const VerifyResult& r) {
    if (!r.pool->init_on_alloc.value_or(false))
        return std::nullopt;
    std::uint64_t writers = r.line->threads;
    for (const auto& bound : {boot.online_nodes, boot.online_cpus})
        if (bound && *bound > 0)
            writers = std::min(writers, static_cast<std::uint64_t>(*bound));
    auto why = model::faster_than_zeroing(r.line->milliseconds, r.pool->pages, r.pool->page_size_kb,
                                          writers);
    if (!why)
        return std::nullopt;
    return Problem{"implausible_time",
                   *why +
                       ": the line is not of this pool's allocation (an edited or mixed-up "
                       "log, or a kernel that times something else); verify the boot's own "
                       "log"};
}

// The prediction scales with the pages (docs/kernel-facts.md "What a boot allocation costs");
// anything else that differs makes the ratio meaningless.
void compare_with_prediction(const ReportPrediction& p, VerifyResult& r) {
    const auto& pool = *r.pool;
    if (p.threads != r.line->threads)
        r.ratio_refused = Problem{"threads_differ",
                                  "the report predicts for " + std::to_string(p.threads) +
                                      " threads, the boot used " + std::to_string(r.line->threads)};
    else if (!p.pool_pages || !p.page_size_kb)
        r.ratio_refused =
            Problem{"report_pool_unknown", "the report does not say which pool it predicts for"};
    else if (*p.page_size_kb != pool.page_size_kb)
        r.ratio_refused = Problem{"page_size_differs",
                                  "the report predicts for " + std::to_string(*p.page_size_kb) +
                                      " kB pages, the boot allocated " +
                                      std::to_string(pool.page_size_kb) + " kB pages"};
    else if (p.init_on_alloc && pool.init_on_alloc && *p.init_on_alloc != *pool.init_on_alloc)
        r.ratio_refused = Problem{
            "init_on_alloc_differs",
            std::string("the report predicts with init_on_alloc ") +
                (*p.init_on_alloc ? "on" : "off") + ", the boot ran with it " +
                (*pool.init_on_alloc ? "on" : "off") + ", which changes the cost of each page"};
    else if (pool.pages == 0)
        r.ratio_refused = Problem{"empty_pool", "the boot allocated no page"};
    if (r.ratio_refused)
        return;
    r.pool_predicted_ms =
        p.predicted_ms * static_cast<double>(pool.pages) / static_cast<double>(*p.pool_pages);
    if (*r.pool_predicted_ms > 0)
        r.ratio = static_cast<double>(r.line->milliseconds) / *r.pool_predicted_ms;
    if (r.ratio)
        if (auto why = model::implausible_ratio(*r.ratio))
            r.problems.push_back(
                {"implausible_ratio",
                 *why + " (docs/kernel-facts.md \"How far a boot can lie from its "
                        "prediction\"): the log is not of the boot predicted for, or the "
                        "report's prediction is broken; check both, or run hugetune run again"});
}

}  // namespace

VerifyResult verify_boot(const VerifyInput& in) {
    VerifyResult r;
    const Boot boot = read_boot(in);
    r.release = boot.release;
    r.init_on_alloc = booted_init_on_alloc(boot);
    r.hvo = booted_hvo(boot, in);
    const auto in_force = check_cmdline(in, boot, r);
    // Of several threaded pools (arm64), the report's size, else the kernel's default size, as
    // probe and the sweep's --page-size take it; the first on the command line when neither has
    // a pool.
    const auto preferred_kb = in.prediction && in.prediction->page_size_kb
                                  ? *in.prediction->page_size_kb
                                  : in.page_sizes.default_size_kb;
    const auto request =
        threaded_request(read_boot_requests(boot.cmdline, in.page_sizes.default_size_kb),
                         in.page_sizes, preferred_kb);
    if (request)
        r.line = allocation_line_for_pool(boot.messages, request->size_kb,
                                          in.page_sizes.largest_buddy_block_kb);
    if (!r.line) {
        auto reasons = missing_line_reasons(boot, request.has_value(), in);
        r.line_absent = reasons.front();
        r.problems.insert(r.problems.end(), reasons.begin(), reasons.end());
        return r;
    }
    if (in_force && r.line->threads != *in_force)
        r.problems.push_back(
            {"threads_mismatch",
             threads_mismatch_reason(r.line->threads, *in_force, boot.online_cpus)});
    r.pool = booted_pool(boot, *request);
    for (auto problem : {shortfall_problem(boot, *request), time_problem(boot, r)})
        if (problem)
            r.problems.push_back(std::move(*problem));
    if (in.prediction)
        compare_with_prediction(*in.prediction, r);
    r.verified = r.problems.empty();
    return r;
}

}  // namespace hugetune::boot
