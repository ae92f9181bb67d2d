#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/probe/probe.hpp"

namespace hugetune::cli {
namespace {

struct ProbeOptions {
    bool json = false;
    std::filesystem::path root = "/";
};

std::optional<ProbeOptions> parse_probe(const Args& args) {
    ProbeOptions o;
    std::string root;
    po::options_description desc("Options");
    desc.add_options()("json", po::bool_switch(&o.json),
                       "print one JSON object instead of the summary")(
        "root", po::value(&root)->value_name("DIR"),
        "read /proc and /sys under DIR instead of / (a tree gathered from another machine)");
    po::variables_map vm;
    if (!parse_options("probe", "hugetune probe [--json] [--root DIR]", desc, args, vm))
        return std::nullopt;
    if (!root.empty())
        o.root = gathered_root_option(root);
    return o;
}

}  // namespace

int run_probe(const Args& args) {
    auto options = parse_probe(args);
    if (!options)
        return 0;
    KernelFs fs(options->root);
    Probe probe = probe_machine(fs);
    if (options->json)
        std::cout << to_json(probe).dump(2) << "\n";
    else
        std::cout << printable_lines(format_summary(probe));
    return 0;
}

}  // namespace hugetune::cli
