#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/boot_record_sender.hpp"
#include "cli/commands.hpp"
#include "cli/setting_flags.hpp"
#include "fleet_db/fleet_db_error.hpp"
#include "model/alloc_threads.hpp"
#include "model/documents/boot_record.hpp"
#include "model/documents/sku.hpp"
#include "model/documents/verification.hpp"
#include "model/errors.hpp"
#include "model/fleet/fleet.hpp"
#include "model/fleet/host_name.hpp"
#include "model/text.hpp"
#include "reports/prometheus.hpp"
#include "tuner/boot/boot_verify.hpp"
#include "tuner/boot/ledger.hpp"
#include "tuner/boot/report_input.hpp"
#include "tuner/kernel/boot_log.hpp"
#include "tuner/kernel/kernel_files.hpp"
#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/kernel/kernel_log.hpp"
#include "tuner/probe/machine_facts.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/system/atomic_file.hpp"

namespace hugetune::cli {
namespace {

struct VerifyOptions {
    std::optional<std::filesystem::path> report;
    std::optional<std::filesystem::path> log;
    std::optional<std::filesystem::path> cmdline;
    std::filesystem::path root = "/";
    std::optional<std::filesystem::path> prometheus;
    std::optional<std::filesystem::path> boot_record;
    std::optional<fleet_db::DbTarget> fleet_db;  // --fleet-db, else HUGETUNE_FLEET_DB
    bool flush = false;
    bool json = false;
};

std::optional<VerifyOptions> parse_verify(const Args& args) {
    VerifyOptions o;
    std::string report, log, cmdline, root, prometheus, boot_record, fleet_db;
    po::options_description desc("Options");
    desc.add_options()(
        "report", po::value(&report)->value_name("FILE"),
        "compare with this report's prediction and add a 'verification' block to it")(
        "log", po::value(&log)->value_name("FILE"),
        "read the kernel log from FILE (dmesg, /dev/kmsg or journalctl -k output) instead of "
        "/dev/kmsg or journalctl -k -b; its last boot counts, with the command line and "
        "release that boot logged, never this machine's")(
        "cmdline", po::value(&cmdline)->value_name("FILE"),
        "read the kernel command line from FILE instead of /proc/cmdline (with --log: where "
        "the log does not show it)")(
        "root", po::value(&root)->value_name("DIR"),
        "read /proc, /dev/kmsg and the ledger under DIR (a tree gathered from another machine)")(
        "prometheus", po::value(&prometheus)->value_name("FILE"),
        "also write the verification as metrics for node_exporter's textfile collector to "
        "FILE.prom (atomically)")(
        "boot-record", po::value(&boot_record)->value_name("FILE"),
        "also write the boot record (docs/fleet.md \"Boots\") to FILE (atomically), whatever "
        "the verdict")(
        "fleet-db", po::value(&fleet_db)->value_name("PATH|URL"),
        "also store the boot record in this fleet database (else HUGETUNE_FLEET_DB; a URL "
        "without its password, which belongs in a password or service file); a record that "
        "cannot be stored waits in /var/lib/hugetune/boot-records/ for the next verify")(
        "flush", po::bool_switch(&o.flush),
        "only send the boot records waiting in /var/lib/hugetune/boot-records/ to the fleet "
        "database (exit 1 while any is left)")(
        "json", po::bool_switch(&o.json),
        "print the verification as one JSON object, the boot record as its member boot_record "
        "(the exit code still says verified or not)");
    po::variables_map vm;
    if (!parse_options("verify",
                       "hugetune verify [--report FILE] [--log FILE] [--cmdline FILE] [--root DIR] "
                       "[--prometheus FILE] [--boot-record FILE] [--fleet-db PATH|URL] [--flush] "
                       "[--json]",
                       desc, args, vm))
        return std::nullopt;
    std::error_code ec;
    if (!root.empty())
        o.root = gathered_root_option(root);
    for (auto [name, value, dest] :
         {std::tuple{"--log", &log, &o.log}, std::tuple{"--cmdline", &cmdline, &o.cmdline}}) {
        if (value->empty())
            continue;
        if (!std::filesystem::is_regular_file(*value, ec))
            usage_error(name, *value + " is not a readable file");
        *dest = *value;
    }
    if (!report.empty())
        o.report = report;
    if (!prometheus.empty()) {
        if (std::filesystem::path(prometheus).extension() != ".prom")
            usage_error("--prometheus",
                        "node_exporter's textfile collector reads only *.prom "
                        "files; name it FILE.prom");
        check_writable_path(prometheus, "--prometheus");
        o.prometheus = prometheus;
    }
    if (!boot_record.empty()) {
        check_writable_path(boot_record, "--boot-record");
        o.boot_record = boot_record;
    }
    o.fleet_db = boot_record_target(fleet_db, "--fleet-db");
    if (o.flush && !o.fleet_db)
        usage_error("--flush", "give the fleet database: --fleet-db PATH|URL or HUGETUNE_FLEET_DB");
    return o;
}

std::optional<std::string> read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A saved log, read as a stream (tuner/kernel/kernel_log.hpp): only its last boot is kept.
KernelLog read_log_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        usage_error("--log", path.string() + " is not a readable file");
    auto log = read_kernel_log(in);
    if (in.bad())
        throw RuntimeError("cannot read " + path.string() + " (--log): " + std::strerror(errno));
    return log;
}

// What verify compares: one boot's log and command line, and the value it expects.
struct Gathered {
    boot::VerifyInput input;
    std::string applied_from;            // where the expected value comes from, for people
    std::optional<std::string> boot_id;  // only for this machine's own boot
};

// A saved log goes with its own command line (its "Command line:" message) or --cmdline, never
// with this machine's; the live log with /proc/cmdline and this machine's release and boot id.
void gather_boot(const VerifyOptions& o, const KernelFs& fs, Gathered& g) {
    auto& in = g.input;
    in.words = flag_words();
    KernelLog log = o.log ? read_log_file(*o.log) : fs.kernel_log();
    if (const auto note = kernel_log_bounds_note(log); !note.empty())
        std::cerr << "hugetune: note: "
                  << (o.log ? "--log " + printable_text(o.log->string()) : "the kernel log") << ": "
                  << note << "\n";
    in.log = std::move(log.messages);
    in.log_left_out = log.left_out;
    if (o.log)
        in.log_unread = "--log " + o.log->string() + " holds no kernel message";
    else if (!fs.is_live())
        in.log_unread = "under --root the log is the tree's " + fs.shown("/dev/kmsg") +
                        ", which is missing or empty";
    std::optional<std::string> cmdline;
    if (o.cmdline) {
        cmdline = read_text(*o.cmdline);
        if (!cmdline)
            usage_error("--cmdline", o.cmdline->string() + " is not a readable file");
    } else if (o.log) {
        cmdline = read_boot_log_context(in.log).cmdline;
        if (!cmdline)
            usage_error("--log", o.log->string() +
                                     " does not show the boot's command line (no 'Command "
                                     "line:' message); give it with --cmdline FILE");
    } else {
        cmdline = running_kernel_cmdline(fs);
        if (!cmdline)
            throw RuntimeError("cannot read " + fs.shown("/proc/cmdline") +
                               "; give the kernel command line with --cmdline FILE");
    }
    in.cmdline = *cmdline;
    in.page_sizes = running_page_size_facts(fs);
    if (o.log)
        return;
    in.hvo_now = hugetlb_optimize_vmemmap(fs);
    if (auto release = running_kernel_release(fs))
        in.release = release;
    g.boot_id = running_boot_id(fs);
}

Gathered gather(const VerifyOptions& o, const KernelFs& fs,
                const std::optional<model::Report>& report) {
    Gathered g;
    gather_boot(o, fs, g);
    auto& in = g.input;
    if (auto ledger = boot::read_ledger(fs)) {
        in.applied = parse_thread_count(ledger->value);
        g.applied_from = "applied " + ledger->applied_at;
    } else if (report) {
        in.applied = report->recommendation.hugepage_alloc_threads;
        g.applied_from = "recommended by the report";
    }
    if (report && !in.online_cpus)
        in.online_cpus = report->kernel.online_cpus;
    if (report && report->run)
        in.online_nodes = report->run->sku.nodes;
    if (report && report->recommendation.predicted_seconds) {
        const auto& rec = report->recommendation;
        const auto& pool = report->boot_pool;
        in.prediction = boot::ReportPrediction{
            *rec.predicted_seconds * 1000.0, rec.hugepage_alloc_threads,
            pool ? std::optional(pool->pages) : std::nullopt,
            pool ? std::optional(pool->page_size_kb) : std::nullopt, report->kernel.init_on_alloc};
    }
    return g;
}

// The report's `verification` block (model/documents/verification.hpp), also printed by --json.
model::Verification verification_of(const Gathered& g, const boot::VerifyResult& r) {
    const auto& in = g.input;
    model::Verification v;
    v.verified = r.verified;
    if (r.line) {
        v.measured_ms = r.line->milliseconds;
        v.threads = r.line->threads;
        v.log_line = r.line->text;
    }
    v.expected_threads = in.applied;
    if (in.prediction)
        v.predicted_ms = in.prediction->predicted_ms;
    v.pool_predicted_ms = r.pool_predicted_ms;
    v.ratio = r.ratio;
    v.ratio_refused = r.ratio_refused;
    if (r.pool)
        v.pool = model::VerifiedPool{r.pool->pages, r.pool->page_size_kb, r.pool->init_on_alloc};
    v.kernel_release = r.release;
    v.boot_id = g.boot_id;
    v.cmdline_value = r.cmdline_value;
    v.problems = r.problems;
    return v;
}

// The machine's hypervisor and SKU key (for the pool's page size) as `hugetune probe` and a
// report make them: neither where the probe cannot read the machine (a tree gathered without
// its /sys).
void set_probed_facts(const KernelFs& fs, std::uint64_t page_size_kb, model::BootRecord& b) {
    try {
        const Probe probe = probe_machine(fs);
        b.virtualization = hypervisor_name(probe.virtualization);
        b.sku = model::sku_key(machine_facts(probe, page_size_kb, {}), page_size_kb);
    } catch (const Error&) {
    }
}

// The host as the fleet names it; nothing when the machine does not say or its name is one the
// fleet refuses (model/fleet/host_name.hpp).
std::optional<std::string> fleet_host_name(const KernelFs& fs) {
    const auto name = kernel_hostname(fs);
    if (!name || model::fleet::host_name_problem(*name))
        return std::nullopt;
    return model::fleet::canonical_host_name(*name);
}

// The boot record (model/documents/boot_record.hpp): made for every boot, verified or not.
model::BootRecord boot_record_of(const KernelFs& fs, const Gathered& g,
                                 const boot::VerifyResult& r) {
    model::BootRecord b;
    b.recorded_at = utc_now();
    b.host = fleet_host_name(fs);
    set_probed_facts(fs, r.pool ? r.pool->page_size_kb : g.input.page_sizes.default_size_kb, b);
    b.boot_id = g.boot_id;
    b.kernel_release = r.release;
    if (r.line) {
        b.threads = r.line->threads;
        b.milliseconds = r.line->milliseconds;
    }
    if (r.pool)
        b.pool = model::BootRecordPool{r.pool->pages, r.pool->page_size_kb};
    b.init_on_alloc = r.init_on_alloc;
    b.hvo = r.hvo;
    b.allocation_line.present = r.line.has_value();
    if (r.line)
        b.allocation_line.text = r.line->text;
    b.allocation_line.absent_reason = r.line_absent;
    b.expected_threads = g.input.applied;
    return b;
}

void print_prediction(const boot::VerifyInput& in, const boot::VerifyResult& r) {
    const auto& p = *in.prediction;
    std::cout << "predicted: " << decimals_text(p.predicted_ms, 0) << " ms";
    if (p.pool_pages && p.page_size_kb)
        std::cout << " for " << *p.pool_pages << " pages of " << *p.page_size_kb << " kB";
    if (r.pool_predicted_ms)
        std::cout << ", " << decimals_text(*r.pool_predicted_ms, 0) << " ms for the "
                  << r.pool->pages << " pages booted";
    if (r.ratio)
        std::cout << "; measured/predicted: " << significant_text(*r.ratio, 3);
    std::cout << "\n";
    if (r.ratio_refused)
        std::cout << "not compared with the prediction: " << r.ratio_refused->message << " ("
                  << r.ratio_refused->code << ")\n";
}

void print_verification(const Gathered& g, const boot::VerifyResult& r) {
    const auto& in = g.input;
    std::cout << "kernel command line: "
              << (r.cmdline_value ? "hugepage_alloc_threads=" + printable_text(*r.cmdline_value)
                                  : std::string("no hugepage_alloc_threads="));
    if (in.applied)
        std::cout << " (expected " << *in.applied << ", " << printable_text(g.applied_from) << ")";
    std::cout << "\n";
    if (!r.line)
        return;
    std::cout << "boot allocation: " << r.line->milliseconds << " ms with " << r.line->threads
              << " threads";
    if (r.pool)
        std::cout << " for " << r.pool->pages << " pages of " << r.pool->page_size_kb << " kB";
    std::cout << "\n";
    if (!r.line->chosen.empty())
        std::cout << "allocation line taken: " << r.line->chosen << "\n";
    if (in.prediction)
        print_prediction(in, r);
    std::cout << "(the kernel times the allocation in jiffies: a few ms of resolution)\n";
}

// Rewrites the report with the verification block; the writer keeps its mode and owner.
void add_to_report(const std::filesystem::path& path, nlohmann::json doc,
                   const nlohmann::json& verification) {
    doc["verification"] = verification;
    write_file_atomically(path, doc.dump(2) + "\n");
}

// The report's SKU key, for the metrics' label; none without a whole report.
std::optional<std::string> sku_key_of(const std::optional<model::Report>& report) {
    if (!report || !report->run)
        return std::nullopt;
    return model::fleet::to_string(report->run->sku);
}

// The spool's records, then `record` when given, into the fleet database; what cannot be stored
// waits in the spool. Said on stderr, as it is not the verdict: verify's exit code stays its own.
// True when nothing is left waiting.
bool send_records(const VerifyOptions& o, const std::optional<fleet_db::IntakeBoot>& record) {
    const RootDir root = RootDir::open(o.root);
    const std::string spool = root.shown(kBootRecordSpool);
    const SendResult r = send_boot_records(*o.fleet_db, root, record);
    if (r.spool_busy)
        print_diagnostic("note", "another hugetune verify is sending the records waiting in " +
                                     printable_text(spool) + "; this one left them to it");
    const std::string counts = "sent " + count_text(r.sent, "boot record") + ", " +
                               std::to_string(r.stored_before) + " stored before";
    if (r.problem)
        print_diagnostic("warning", "the fleet database " + printable_text(o.fleet_db->display) +
                                        " did not take the boot records (" + *r.problem +
                                        "): " + count_text(r.left, "record") +
                                        (r.left == 1 ? " waits" : " wait") + " in " +
                                        printable_text(spool) +
                                        ", sent by the next verify that reaches it or by "
                                        "'hugetune verify --flush'");
    else if (!o.json)
        std::cout << counts << " to " << printable_text(o.fleet_db->display) << "\n";
    return r.left == 0;
}

// This boot's record as the fleet database takes it, or nothing, said, when a value in it is one
// the record's reader refuses (a logged release longer than uname's 64 characters, a line's
// thread count past the kernel's bound): `fleet ingest` would refuse it, so the database never
// gets it, nor the spool, which would only set it aside later.
std::optional<fleet_db::IntakeBoot> storable_record(const model::BootRecord& record) {
    try {
        return fleet_db::intake_boot("this boot's record", record);
    } catch (const fleet_db::FleetDbError& e) {
        print_diagnostic("warning", printable_text(e.what()) +
                                        "; it is not sent to the fleet database, which refuses "
                                        "it as fleet ingest does");
        return std::nullopt;
    }
}

// The verdict and its output; throws RuntimeError when the boot is not verified. `metrics_written`
// is set once the textfile holds this verdict.
int verify_and_report(const VerifyOptions& o, bool& metrics_written) {
    KernelFs fs(o.root);
    std::optional<model::Report> report;
    if (o.report) {
        model::ReportReading reading;
        reading.need_prediction = true;
        report = read_report_file(*o.report, reading);
        // The verification block is written into the report: refuse now a report that could
        // not be rewritten, rather than after the verdict.
        check_writable_path(*o.report, "--report");
    }
    const auto gathered = gather(o, fs, report);
    const auto r = boot::verify_boot(gathered.input);
    const model::Verification v = verification_of(gathered, r);
    const model::BootRecord record = boot_record_of(fs, gathered, r);
    if (o.json) {
        auto out = model::to_json(v);
        out[model::kBootRecordMember] = model::to_json(record);
        std::cout << out.dump(2) << "\n";
    } else
        print_verification(gathered, r);
    // Kept whatever the verdict: a boot without its line is a record too.
    if (o.boot_record) {
        write_file_atomically(*o.boot_record, model::to_json(record).dump(2) + "\n");
        if (!o.json)
            std::cout << "kept the boot record in " << printable_text(o.boot_record->string())
                      << "\n";
    }
    if (o.fleet_db)
        send_records(o, storable_record(record));
    if (report && r.line) {
        add_to_report(*o.report, report->document, model::to_json(v));
        if (!o.json)
            std::cout << "added a verification block to " << o.report->string() << "\n";
    }
    // Written whatever the verdict: a boot that was not verified is what a dashboard must show.
    if (o.prometheus) {
        const int code = static_cast<int>(r.verified ? ExitCode::ok : ExitCode::failure);
        write_file_atomically(*o.prometheus, prometheus_text(verification_samples(
                                                 v, sku_key_of(report), code, unix_now_seconds())));
        metrics_written = true;
    }
    if (!r.verified)
        throw RuntimeError("not verified: " + join(r.problems, "; ", [](const auto& p) {
                               return p.message + " (" + p.code + ")";
                           }));
    if (!o.json)
        std::cout << "verified\n";
    return 0;
}

}  // namespace

// Exit codes: 0 verified; 1 not verified (each problem with its code), with the reasons on
// stderr; 2 bad options, report or a saved log without its command line.
int run_verify(const Args& args) {
    auto o = parse_verify(args);
    if (!o)
        return 0;
    if (o->flush)
        return send_records(*o, std::nullopt) ? 0 : static_cast<int>(ExitCode::failure);
    bool metrics_written = false;
    try {
        return verify_and_report(*o, metrics_written);
    } catch (const std::exception&) {
        // A verify that could not judge the boot replaces the textfile too, so that the last
        // boot's verdict does not stand for this one: its exit code and time, nothing else.
        if (o->prometheus && !metrics_written) {
            const int code = static_cast<int>(current_error().code);
            try {
                write_file_atomically(*o->prometheus, prometheus_text(verify_failure_samples(
                                                          code, unix_now_seconds())));
            } catch (const std::exception&) {  // the error that stopped verify is the one to report
            }
        }
        throw;
    }
}

}  // namespace hugetune::cli
