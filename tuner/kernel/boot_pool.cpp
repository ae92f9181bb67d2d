#include "tuner/kernel/boot_pool.hpp"

#include "model/alloc_threads.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <utility>

namespace hugetune {
namespace {

// The leading decimal digits of `text` and how many there are, as sscanf("%lu%n") reads them;
// nothing when it does not start with a digit.
std::optional<std::pair<std::uint64_t, std::size_t>> leading_decimal(std::string_view text) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
    if (ec != std::errc())
        return std::nullopt;
    return std::pair{value, static_cast<std::size_t>(end - text.data())};
}

// "512" or "0:256,1:256": the pages of one hugepages= value, read as hugepages_setup() does
// (docs/kernel-facts.md "hugepagesz= and hugepages= pairs"): decimal counts only, reading stops
// at the first character that is not part of the format ("0x10" is 0 pages), and nothing when
// the kernel would reject the value as invalid.
std::optional<BootRequest> read_request(std::string_view value, std::uint64_t size_kb) {
    BootRequest r;
    r.size_kb = size_kb;
    std::string_view rest = value;
    while (!rest.empty()) {
        const auto number = leading_decimal(rest);
        if (!number)
            return std::nullopt;
        if (number->second < rest.size() && rest[number->second] == ':') {
            r.node_format = true;
            rest.remove_prefix(number->second + 1);
            const auto pages = leading_decimal(rest);
            if (!pages)
                return std::nullopt;
            r.pages += pages->first;
            if (pages->second >= rest.size() || rest[pages->second] != ',')
                break;
            rest.remove_prefix(pages->second + 1);
        } else {
            if (rest.size() != value.size())
                return std::nullopt;  // a plain count after node:count pairs
            r.pages = number->first;
            break;
        }
    }
    return r;
}

// default_hugepagesz_setup() ignores a second default_hugepagesz=.
std::optional<std::string> first_value(const KernelCmdline& cmdline, std::string_view name) {
    for (const auto& p : cmdline.params)
        if (p.name == name)
            return p.value;
    return std::nullopt;
}

}  // namespace

std::vector<BootRequest> read_boot_requests(const KernelCmdline& cmdline,
                                            std::uint64_t default_kb) {
    std::vector<BootRequest> out;
    if (auto d = first_value(cmdline, "default_hugepagesz"))
        if (auto kb = parse_memsize_kb(*d))
            default_kb = *kb;
    std::uint64_t current = default_kb;
    for (const auto& p : cmdline.params) {
        if (same_param_name(p.name, "hugepagesz") && p.value) {
            if (auto kb = parse_memsize_kb(*p.value))
                current = *kb;
        } else if (same_param_name(p.name, "hugepages") && p.value) {
            auto request = read_request(*p.value, current);
            if (!request)
                continue;
            // The kernel keeps the first request for a size and ignores, with a warning, a
            // repeated hugepages= or hugepagesz= for it.
            const bool seen = std::any_of(out.begin(), out.end(), [&](const BootRequest& b) {
                return b.size_kb == request->size_kb;
            });
            if (!seen)
                out.push_back(*request);
        }
    }
    return out;
}

std::optional<BootRequest> threaded_request(const std::vector<BootRequest>& requests,
                                            const model::PageSizeFacts& sizes,
                                            std::optional<std::uint64_t> preferred_kb) {
    std::optional<BootRequest> chosen;
    for (const auto& r : requests) {
        if (r.pages == 0 || r.node_format || sizes.gigantic(r.size_kb))
            continue;
        if (!chosen || preferred_kb == r.size_kb)
            chosen = r;
    }
    return chosen;
}

BootPoolFacts boot_pool_facts(const KernelCmdline& cmdline, const model::PageSizeFacts& sizes) {
    BootPoolFacts facts;
    bool any_small = false;
    for (const auto& r : read_boot_requests(cmdline, sizes.default_size_kb)) {
        if (r.pages == 0)
            continue;
        facts.pool_requested = true;
        if (sizes.gigantic(r.size_kb))
            continue;
        any_small = true;
        if (r.node_format)
            facts.node_format = true;
        else
            facts.threaded_pool = true;
    }
    facts.only_gigantic = facts.pool_requested && !any_small;
    return facts;
}

std::vector<model::Warning> alloc_threads_problems(const BootPoolFacts& facts,
                                                   const std::optional<std::string>& release) {
    std::vector<model::Warning> out;
    if (release && release_honours_alloc_threads(*release) == std::optional<bool>(false))
        out.push_back({"kernel_too_old", "kernel " + *release +
                                             " is older than 6.15, which ignores "
                                             "hugepage_alloc_threads="});
    if (!facts.pool_requested)
        out.push_back({"no_boot_pool",
                       "the command line requests no boot-time huge page pool (hugepages=), so "
                       "the kernel allocates nothing at boot and the parameter has no effect"});
    else if (facts.only_gigantic)
        out.push_back({"gigantic_only",
                       "only gigantic pages are requested at boot; the kernel allocates them "
                       "serially from memblock and hugepage_alloc_threads= does not apply"});
    if (facts.node_format && !facts.threaded_pool)
        out.push_back({"node_format_hugepages",
                       "the boot pool uses node-format hugepages= (node:count), which takes a "
                       "serial per-node path that ignores hugepage_alloc_threads="});
    return out;
}

std::vector<std::string> alloc_threads_caveats(const BootPoolFacts& facts,
                                               const std::optional<std::string>& release) {
    std::vector<std::string> out;
    for (auto& problem : alloc_threads_problems(facts, release))
        out.push_back(std::move(problem.message));
    return out;
}

}  // namespace hugetune
