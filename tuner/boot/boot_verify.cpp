#include "tuner/boot/boot_verify.hpp"

#include "tuner/kernel/boot_pool.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot {

std::vector<std::string> missing_line_reasons(const VerifyInput& in) {
    std::vector<std::string> reasons;
    auto facts = boot_pool_facts(parse_kernel_cmdline(in.cmdline));
    auto caveats = alloc_threads_caveats(facts, in.release);
    reasons.insert(reasons.end(), caveats.begin(), caveats.end());
    if (!reasons.empty())
        return reasons;
    if (in.log.empty()) {
        reasons.push_back(
            "no kernel log could be read (reading /dev/kmsg needs root; "
            "journalctl -k -b needs journald); give the log with --log FILE");
        return reasons;
    }
    for (const auto& l : in.log) {
        if (l.find("HugeTLB: allocating") != std::string::npos &&
            l.find("failed") != std::string::npos) {
            reasons.push_back("the boot pool allocation failed: '" + l + "'");
            return reasons;
        }
    }
    // The first boot messages ("Linux version ...", "Command line: ...") are still there
    // unless the ring buffer wrapped or the journal was rotated.
    bool has_boot_start = false;
    for (const auto& l : in.log)
        if (l.starts_with("Linux version ") || l.find("Command line:") != std::string::npos)
            has_boot_start = true;
    if (!has_boot_start) {
        reasons.push_back(
            "the log no longer reaches back to the start of the boot (ring buffer "
            "overwritten or journal rotated), so the line is lost; keep a "
            "persistent journal or save dmesg right after boot and pass --log");
        return reasons;
    }
    reasons.push_back(
        "the log holds the whole boot but no allocation line, although the "
        "command line requests a threaded boot pool on a 6.15+ kernel");
    return reasons;
}

VerifyResult verify_boot(const VerifyInput& in) {
    VerifyResult r;
    r.cmdline_value = parse_kernel_cmdline(in.cmdline).last("hugepage_alloc_threads");
    std::optional<std::uint64_t> in_force;
    if (r.cmdline_value) {
        auto v = parse_kernel_ulong(*r.cmdline_value);
        // An unparsable value or 0 is ignored by the kernel (docs/kernel-facts.md "Parsing the
        // value").
        if (v && *v > 0)
            in_force = v;
        else
            r.problems.push_back("/proc/cmdline has hugepage_alloc_threads=" + *r.cmdline_value +
                                 ", which the kernel ignores");
    }
    if (in.applied && in_force != in.applied)
        r.problems.push_back(
            "the running kernel's command line has " +
            (r.cmdline_value ? "hugepage_alloc_threads=" + *r.cmdline_value
                             : std::string("no hugepage_alloc_threads=")) +
            ", not the applied " + std::to_string(*in.applied) +
            "; the boot entries were not regenerated, or another entry was booted");
    r.line = find_boot_allocation_line(in.log);
    if (!r.line) {
        auto reasons = missing_line_reasons(in);
        r.problems.insert(r.problems.end(), reasons.begin(), reasons.end());
        return r;
    }
    if (in_force && r.line->threads != *in_force)
        r.notes.push_back("the kernel used " + std::to_string(r.line->threads) +
                          " threads although the command line asks for " +
                          std::to_string(*in_force));
    if (in.predicted_ms && *in.predicted_ms > 0)
        r.ratio = static_cast<double>(r.line->milliseconds) / *in.predicted_ms;
    r.verified = r.problems.empty();
    return r;
}

}  // namespace hugetune::boot
