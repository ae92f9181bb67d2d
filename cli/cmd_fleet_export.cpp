// `hugetune fleet export --format FORMAT`: per SKU what a configuration tool (Ansible, tuned,
// OpenShift, or anything reading JSON, CSV or plain lines) needs, or metrics for
// node_exporter's textfile collector.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "cli/fleet_exports.hpp"
#include "model/errors.hpp"
#include "model/fleet/host_name.hpp"
#include "model/text.hpp"
#include "reports/prometheus.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/contained_dir.hpp"

namespace hugetune::cli {
namespace {

struct ExportCommand {
    std::string db, format = "json", out;
    model::fleet::FleetOptions options;
};

constexpr std::string_view kFormats[] = {"json",    "csv",   "cmdline",      "prometheus",
                                         "ansible", "tuned", "machineconfig"};

// The formats --out names a directory for: several files.
bool writes_directory(const std::string& format) {
    return format == "ansible" || format == "tuned";
}

std::optional<ExportCommand> parse_export(const Args& args) {
    ExportCommand o;
    po::options_description desc("Options");
    desc.add_options()(
        "format", po::value(&o.format)->value_name("FORMAT"),
        option_help("json, csv, cmdline (one 'SKU hugepage_alloc_threads=N' line per settled SKU "
                    "that sets a value), prometheus, or for those SKUs: ansible (an inventory "
                    "whose groups are the SKUs, with their variables), tuned (a profile per SKU) "
                    "or machineconfig (an OpenShift MachineConfig per SKU)",
                    "json")
            .c_str())("out", po::value(&o.out)->value_name("FILE|DIR"),
                      "write to FILE (atomically) instead of stdout; with prometheus a .prom "
                      "file; with ansible or tuned a directory, each file in it written "
                      "atomically");
    add_db_option(desc, o.db);
    AnalysisFlags flags;
    add_analysis_options(desc, flags);
    po::variables_map vm;
    if (!parse_options("fleet export",
                       "hugetune fleet export [--format FORMAT] [--out FILE|DIR] [--db PATH|URL]\n"
                       "                             [analysis options]",
                       desc, args, vm))
        return std::nullopt;
    o.options = fleet_analysis_options(flags);
    if (std::find(std::begin(kFormats), std::end(kFormats), o.format) == std::end(kFormats)) {
        usage_error("--format", "'" + o.format + "' is not one of " + join(kFormats));
    }
    if (o.format == "prometheus" && !o.out.empty() &&
        std::filesystem::path(o.out).extension() != ".prom")
        usage_error("--out",
                    "node_exporter's textfile collector reads only *.prom files; name "
                    "it FILE.prom");
    if (!o.out.empty() && writes_directory(o.format)) {
        std::error_code ec;
        const std::filesystem::path dir(o.out);
        if (std::filesystem::exists(std::filesystem::symlink_status(dir, ec)) &&
            !std::filesystem::is_directory(std::filesystem::symlink_status(dir, ec)))
            usage_error("--out", o.out + " is not a directory; with --format " + o.format +
                                     " --out names the directory to write the files into");
        const auto parent = dir.has_parent_path() ? dir.parent_path() : ".";
        if (!std::filesystem::is_directory(parent, ec))
            usage_error("--out", parent.string() + " does not exist; create it first");
    } else if (!o.out.empty()) {
        check_writable_path(o.out, "--out");
    }
    return o;
}

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. A field
// a spreadsheet would take for a formula (starting with = + - @, a tab or a carriage return)
// is quoted too, after a single quote that keeps it text.
std::string csv_field(const std::string& text) {
    const bool formula =
        !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
    if (!formula && text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string out = formula ? "\"'" : "\"";
    for (const char c : text)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

bool exportable(const SkuRow& row) {
    return row.answer && model::fleet::is_settled(row.answer->status) &&
           !row.answer->kernel_cmdline.empty();
}

// A name stored before the host-name rule refused it ("all", a group's name) would take the
// place of a group in the inventory: the host is left out, and said so.
bool exportable_host(const std::string& host) {
    const auto problem = model::fleet::host_name_problem(host);
    if (problem)
        print_diagnostic("warning", "host '" + printable_text(host) + "' left out: " + *problem +
                                        "; forget it (hugetune fleet forget --host " +
                                        printable_text(host) +
                                        ") and ingest its report under its DNS name");
    return !problem;
}

// The open canary plans whose boots have not decided yet, by SKU: their arms are exported.
std::map<std::string, model::fleet::CanaryPlan> open_arms(fleet_db::FleetDb& db,
                                                          const HostsOfSkus& hosts) {
    std::map<std::string, model::fleet::CanaryPlan> out;
    for (auto& plan : db.open_plans()) {
        const auto found = hosts.hosts.find(plan.sku_key);
        const auto& names = found == hosts.hosts.end() ? std::vector<std::string>{} : found->second;
        const auto status = model::fleet::plan_status(
            plan, names,
            db.boots_of_sku(plan.sku_key, model::fleet::BootHosts(names), plan.started_at));
        if (!status.decided)
            out.emplace(plan.sku_key, std::move(plan));
    }
    return out;
}

// A settled SKU's hosts, but for those its answer left out of the fit: the value is not known
// to be right for them, so no export names them with it. A SKU with an open canary plan gives
// its arms' hosts to an entry of each arm ("KEY/canary-N", the arm's value), the others keep
// the answer: each host in one entry.
std::vector<ExportSku> export_skus(const std::vector<SkuRow>& rows, const HostsOfSkus& hosts,
                                   const std::map<std::string, model::fleet::CanaryPlan>& plans) {
    std::vector<ExportSku> out;
    for (const auto& row : rows)
        if (exportable(row)) {
            const auto plan = plans.find(row.key);
            const std::size_t arms = plan == plans.end() ? 0 : plan->second.values.size();
            std::vector<std::vector<std::string>> arm_hosts(arms);
            std::vector<std::string> names;
            if (const auto found = hosts.hosts.find(row.key); found != hosts.hosts.end())
                for (const auto& host : found->second) {
                    if (std::any_of(row.answer->excluded.begin(), row.answer->excluded.end(),
                                    [&](const auto& e) { return e.host == host; }) ||
                        !exportable_host(host))
                        continue;
                    const auto arm =
                        arms > 0 ? model::fleet::canary_arm(plan->second, host) : std::nullopt;
                    (arm ? arm_hosts[*arm] : names).push_back(host);
                }
            out.push_back({row.key, row.answer->hugepage_alloc_threads, std::move(names)});
            for (std::size_t i = 0; i < arms; ++i)
                if (!arm_hosts[i].empty()) {
                    const int value = plan->second.values[i];
                    out.push_back({row.key + "/canary-" + std::to_string(value),
                                   static_cast<std::uint64_t>(value), std::move(arm_hosts[i])});
                }
        }
    return out;
}

std::string render(const std::string& format, const std::vector<SkuRow>& rows,
                   fleet_db::FleetDb& db) {
    std::string out;
    if (format == "json") {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& row : rows)
            j.push_back(to_json(row));
        return j.dump(2) + "\n";
    }
    if (format == "csv") {
        out = "sku,status,decision,hugepage_alloc_threads,kernel_cmdline\n";
        for (const auto& row : rows) {
            if (!row.answer) {
                out +=
                    csv_field(row.key) + "," + std::string(model::fleet::kSkuErrorStatus) + ",,,\n";
                continue;
            }
            const auto& a = *row.answer;
            out += csv_field(row.key) + "," + model::fleet::to_string(a.status) + "," +
                   model::to_string(a.decision) + "," + std::to_string(a.hugepage_alloc_threads) +
                   "," + a.kernel_cmdline + "\n";
        }
        return out;
    }
    if (format == "cmdline") {
        for (const auto& row : rows)
            if (exportable(row))
                out += row.key + " " + row.answer->kernel_cmdline + "\n";
        return out;
    }
    const HostsOfSkus hosts = hosts_of_skus(db);
    if (format == "ansible")
        return ansible_document(export_skus(rows, hosts, open_arms(db, hosts)));
    if (format == "tuned")
        return tuned_text(export_skus(rows, hosts, open_arms(db, hosts)));
    if (format == "machineconfig")
        return machineconfig_text(export_skus(rows, hosts, open_arms(db, hosts)));
    std::vector<FleetMetricInput> skus;
    for (const auto& row : rows) {
        const auto latest = hosts.latest_report.find(row.key);
        skus.push_back({row.key, row.answer,
                        latest == hosts.latest_report.end()
                            ? std::nullopt
                            : unix_seconds_of_iso8601_utc(latest->second)});
    }
    return prometheus_text(fleet_samples(skus, unix_now_seconds()));
}

// The files an export to DIR wrote, one path relative to DIR a line: the next export to DIR
// removes those it no longer holds, and nothing else (a file someone put there stays). Every
// file is reached from DIR's descriptor one plain name at a time, never through a link
// (ContainedDir), so neither the export nor a manifest someone edited reaches outside DIR.
constexpr std::string_view kManifest = ".hugetune-export-manifest";

// The manifest's paths, each split into its parts; a line that is not a path of plain names
// inside DIR is refused with a warning and names nothing.
std::vector<std::vector<std::string>> read_manifest(const ContainedDir& dir) {
    std::vector<std::vector<std::string>> out;
    const auto text = dir.read_file(std::string(kManifest));
    if (!text)
        return out;
    std::istringstream in(*text);
    std::size_t number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (auto parts = plain_parts(line))
            out.push_back(std::move(*parts));
        else
            print_diagnostic("warning", "ignored line " + std::to_string(number) + " of " +
                                            (dir.path() / kManifest).string() + ", '" +
                                            printable_text(line) +
                                            "': not a path inside the directory");
    }
    return out;
}

// Removes DIR/PARTS when it is a regular file, then the directories that leaves empty; whether
// it removed the file.
bool remove_within(const ContainedDir& dir, const std::vector<std::string>& parts,
                   std::size_t i = 0) {
    if (i + 1 == parts.size())
        return dir.remove_file(parts[i]);
    const auto sub = dir.existing_subdirectory(parts[i]);
    if (!sub || !remove_within(*sub, parts, i + 1))
        return false;
    dir.remove_empty_subdirectory(parts[i]);
    return true;
}

void write_within(const ContainedDir& dir, const std::vector<std::string>& parts,
                  std::string_view text, std::size_t i = 0) {
    if (i + 1 == parts.size())
        return dir.write_file(parts[i], text);
    write_within(dir.subdirectory(parts[i]), parts, text, i + 1);
}

// An export names its files with plain names (the groups' safe names); one that does not is a
// programming error, and stops the export before it writes.
std::vector<std::string> parts_of(const ExportFile& file) {
    return plain_parts(file.path.generic_string()).value();
}

void write_files(const std::filesystem::path& path, const std::vector<ExportFile>& files) {
    const auto dir = ContainedDir::open(path, "--out");
    const auto before = read_manifest(dir);
    std::vector<std::vector<std::string>> now;
    for (const auto& f : files)
        now.push_back(parts_of(f));
    for (std::size_t i = 0; i < files.size(); ++i)
        write_within(dir, now[i], files[i].text);
    // Removed before the manifest moves on: an export stopped between the two removes them
    // next time.
    std::size_t removed = 0;
    for (const auto& parts : before)
        if (std::find(now.begin(), now.end(), parts) == now.end() && remove_within(dir, parts))
            ++removed;
    if (removed > 0)
        print_diagnostic("note", "removed " + count_text(static_cast<long long>(removed), "file") +
                                     " the last export to " + path.string() +
                                     " wrote and this one no longer holds");
    std::string manifest;
    for (const auto& f : files)
        manifest += f.path.generic_string() + "\n";
    dir.write_file(std::string(kManifest), manifest);
}

}  // namespace

int run_fleet_export(const Args& args) {
    const auto o = parse_export(args);
    if (!o)
        return 0;
    auto db = open_fleet_db(o->db);
    // The formats that print only the headline fields read a kept answer without its fit.
    const auto rows =
        answers_of_all_skus(db, o->options, o->format == "json" ? Fit::read : Fit::left_out);
    if (o->format != "json" && o->format != "csv" && o->format != "prometheus") {
        const auto left =
            std::count_if(rows.begin(), rows.end(), [](const SkuRow& r) { return !exportable(r); });
        if (left > 0)
            print_diagnostic("note", count_text(left, "SKU") +
                                         " left out: not settled, or the kernel default "
                                         "is kept (see 'hugetune fleet skus')");
    }
    if (!o->out.empty() && writes_directory(o->format)) {
        const auto all = hosts_of_skus(db);
        const auto skus = export_skus(rows, all, open_arms(db, all));
        write_files(o->out, o->format == "ansible" ? ansible_files(skus) : tuned_files(skus));
        return 0;
    }
    const std::string text = render(o->format, rows, db);
    if (o->out.empty())
        std::cout << text;
    else
        write_file_atomically(o->out, text);
    return 0;
}

}  // namespace hugetune::cli
