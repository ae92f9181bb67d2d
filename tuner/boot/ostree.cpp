#include "tuner/boot/ostree.hpp"

#include <charconv>

#include "model/errors.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot {
namespace {

// N of "ostree-N-OS.conf" or, with ostree's newer naming, "ostree-N.conf"; nothing for any
// other name.
std::optional<unsigned> ostree_entry_number(std::string_view path) {
    std::string_view name = path.substr(path.rfind('/') + 1);
    if (!name.starts_with("ostree-") || !name.ends_with(".conf"))
        return std::nullopt;
    std::string_view rest = name.substr(7);
    unsigned n = 0;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
    if (ec != std::errc() || end == rest.data() || (*end != '-' && *end != '.'))
        return std::nullopt;
    return n;
}

}  // namespace

bool is_ostree_system(const KernelFs& root) {
    return root.exists(kOstreeBooted);
}

OstreeDeployment read_default_deployment(const KernelFs& root) {
    if (root.exists(kOstreeStaged))
        throw UsageError(std::string(kOstreeStaged) +
                         ": a deployment is staged for the next boot, and its kernel arguments "
                         "are in no boot entry yet; reboot into it, or drop it with "
                         "'rpm-ostree cleanup --pending', then run hugetune again");
    std::optional<BlsEntry> best;
    unsigned best_n = 0;
    for (auto& e : read_bls_entries(root)) {
        auto n = ostree_entry_number(e.path);
        if (n && (!best || *n > best_n)) {
            best_n = *n;
            best = std::move(e);
        }
    }
    if (!best)
        throw RuntimeError(
            "/run/ostree-booted exists, but no ostree boot entry "
            "(/boot/loader/entries/ostree-N-OS.conf) under " +
            root.root().string() +
            " says what the default deployment boots "
            "with; run 'rpm-ostree kargs' to see its arguments and change "
            "them with it by hand");
    OstreeDeployment d{best->path, best->kernel, best->options, {}};
    for (const auto& p : parse_kernel_cmdline(d.options).params)
        if (same_param_name(p.name, kAllocThreadsParam))
            d.values.push_back(p.value.value_or(""));
    return d;
}

std::optional<Argv> ostree_kargs_command(const std::vector<std::string>& current,
                                         const std::optional<std::string>& value) {
    if (current.size() > 1)
        throw UsageError("the default deployment's kernel arguments hold " +
                         std::to_string(current.size()) + " " + std::string(kAllocThreadsParam) +
                         "= values, which rpm-ostree kargs --replace cannot change at once; "
                         "keep one with 'rpm-ostree kargs --editor', then run hugetune again");
    if (current.empty() && !value)
        return std::nullopt;
    if (current.empty())
        return Argv{"rpm-ostree", "kargs", "--append=" + alloc_threads_param(*value)};
    if (!value)
        return Argv{"rpm-ostree", "kargs", "--delete=" + alloc_threads_param(current.front())};
    if (current.front() == *value)
        return std::nullopt;
    return Argv{"rpm-ostree", "kargs", "--replace=" + alloc_threads_param(*value)};
}

}  // namespace hugetune::boot
