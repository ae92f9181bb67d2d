// `hugetune boot-sweep plan|start|continue|status|abort`: measures the kernel's own boot
// allocation at each thread count, one kexec boot per step, never writing the boot
// configuration (tuner/boot_sweep/steps.hpp has the rules that make a loop impossible).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "cli/help_formats.hpp"
#include "cli/setting_flags.hpp"
#include "model/alloc_threads.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/boot/regenerate.hpp"
#include "tuner/boot_sweep/host.hpp"
#include "tuner/boot_sweep/plan.hpp"
#include "tuner/boot_sweep/result.hpp"
#include "tuner/boot_sweep/state.hpp"
#include "tuner/boot_sweep/steps.hpp"
#include "tuner/kernel/cmdline.hpp"
#include "tuner/kernel/kernel_files.hpp"
#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/pool_state.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/effects.hpp"
#include "tuner/system/file_lock.hpp"
#include "tuner/system/own_binary.hpp"
#include "tuner/system/owned_fd.hpp"
#include "tuner/system/privilege.hpp"
#include "tuner/system/process.hpp"
#include "tuner/system/root_dir.hpp"
#include "tuner/system/root_path.hpp"

namespace hugetune::cli {
namespace {

namespace bs = boot_sweep;
namespace fs = std::filesystem;

struct BootSweepOptions {
    bs::Request request;
    std::optional<std::string> kernel, initrd;
    fs::path state = bs::kDefaultStatePath;
    bool state_given = false;
    bs::Finish finish = bs::Finish::kexec;
    bool systemd = true;
    bool dry_run = false;
    bool json = false;
    fs::path root = "/";
};

// The raw text of every option; each subcommand adds the ones it takes.
struct OptionText {
    std::string threads, pages, page_size, repetitions, init_on_alloc = "keep",
                                                        hugetlb_free_vmemmap = "keep";
    double gib = 0;  // read by gib_value (cli/cli.hpp) as the options are parsed
    std::string kernel, initrd, state, finish = "kexec", root;
    bool no_systemd = false, dry_run = false, json = false;
};

void add_plan_options(po::options_description& d, OptionText& t) {
    d.add_options()("threads", po::value(&t.threads)->value_name("LIST"),
                    "thread counts to boot with, totals as the kernel takes them (default "
                    "1,2,4,8,16,32 per node times the nodes, capped at the CPUs, and the "
                    "kernel's default)")(
        "pages", po::value(&t.pages)->value_name("P"),
        "boot pool in pages (default: the command line's hugepages=)")(
        "gib", gib_value("--gib", t.gib, "64"), "boot pool in GiB, instead of --pages")(
        "page-size", po::value(&t.page_size)->value_name("SIZE"),
        "huge page size, one the kernel lists (default: the kernel's default huge page size; "
        "gigantic pages are not allocated by the threads)")(
        "repetitions", po::value(&t.repetitions)->value_name("R"),
        option_help("boots per thread count", std::to_string(bs::Request::kDefaultRepetitions),
                    "1 to " + std::to_string(bs::kMaxRepetitions))
            .c_str())("init-on-alloc", po::value(&t.init_on_alloc)->value_name("keep|0|1|0,1"),
                      "init_on_alloc= on every step, or each of two values on every thread count "
                      "(default keep: as the command line has it)")(
        "hugetlb-free-vmemmap",
        po::value(&t.hugetlb_free_vmemmap)->value_name("keep|on|off|on,off"),
        "hugetlb_free_vmemmap= (HVO) on every step, or each of two values on every thread "
        "count "
        "and init_on_alloc value (default keep: as the command line has it)")(
        "kernel", po::value(&t.kernel)->value_name("FILE"),
        "kernel image to kexec (default /boot/vmlinuz-RELEASE of the running kernel)")(
        "initrd", po::value(&t.initrd)->value_name("FILE"),
        "initrd to kexec with (default /boot/initrd.img-RELEASE or "
        "/boot/initramfs-RELEASE.img; "
        "'none' for none)");
}

void add_state_option(po::options_description& d, OptionText& t) {
    d.add_options()("state", po::value(&t.state)->value_name("FILE"),
                    ("the sweep's state file, on persistent storage (default " +
                     bs::kDefaultStatePath.string() + "; the result goes beside it)")
                        .c_str());
}

void add_common_options(po::options_description& d, OptionText& t, bool json) {
    d.add_options()("root", po::value(&t.root)->value_name("DIR"),
                    "a tree that is not this machine: read /proc, /sys, /dev/kmsg and /boot, "
                    "and write the state and unit, under DIR; print kexec and systemctl, never "
                    "run them")("dry-run", po::bool_switch(&t.dry_run),
                                "say what would be done; change nothing");
    if (json)
        d.add_options()("json", po::bool_switch(&t.json), "print one JSON object");
}

// "keep" alone, or one or two distinct values from `names` (false's name, true's name),
// comma-separated, in the order the steps boot them.
std::vector<bool> setting_values(const std::string& flag, const std::string& text,
                                 const std::pair<std::string, std::string>& names) {
    const std::string allowed = "keep, " + names.first + ", " + names.second + ", or both (" +
                                names.first + "," + names.second + ")";
    if (text == "keep")
        return {};
    std::vector<bool> values;
    for (const std::string& item : list_items(flag, text)) {
        if (item != names.first && item != names.second)
            usage_error(flag, "'" + item + "' is not one of " + allowed);
        const bool value = item == names.second;
        if (std::find(values.begin(), values.end(), value) != values.end())
            usage_error(flag, "gives " + item + " twice; give each value once");
        values.push_back(value);
    }
    if (values.empty())
        usage_error(flag, "must be " + allowed);
    return values;
}

// Totals as the kernel takes them; the plan refuses those above the machine's CPUs.
std::vector<int> thread_totals(const std::string& text) {
    const std::vector<int> totals = parse_thread_list("--threads", text);
    for (int total : totals)
        if (total < 1 || static_cast<std::uint64_t>(total) > kMaxAllocThreads)
            usage_error("--threads",
                        "each count must be between 1 and " + std::to_string(kMaxAllocThreads));
    return totals;
}

void read_plan_options(const OptionText& t, const po::variables_map& vm, BootSweepOptions& o) {
    if (vm.count("threads"))
        o.request.threads = thread_totals(t.threads);
    if (vm.count("pages"))
        o.request.pages = parse_unsigned("--pages", t.pages);
    if (vm.count("gib"))
        o.request.gib = t.gib;
    if (vm.count("page-size")) {
        const auto kb = parse_memsize_kb(t.page_size);
        if (!kb || *kb == 0)
            usage_error("--page-size", "'" + t.page_size +
                                           "' is not a size; give one the kernel "
                                           "lists, e.g. 2M");
        o.request.page_size_kb = *kb;
    }
    if (vm.count("repetitions")) {
        const auto r = parse_unsigned("--repetitions", t.repetitions);
        o.request.repetitions = static_cast<int>(std::min<std::uint64_t>(r, 1u << 20));
    }
    o.request.init_on_alloc = setting_values("--init-on-alloc", t.init_on_alloc, {"0", "1"});
    o.request.hugetlb_free_vmemmap =
        setting_values("--hugetlb-free-vmemmap", t.hugetlb_free_vmemmap, {"off", "on"});
    if (!t.kernel.empty())
        o.kernel = t.kernel;
    if (t.initrd == "none")
        o.request.no_initrd = true;
    else if (!t.initrd.empty())
        o.initrd = t.initrd;
}

std::optional<BootSweepOptions> parse_sub(const std::string& sub, const Args& args) {
    OptionText t;
    po::options_description desc("Options");
    const bool planning = sub == "plan" || sub == "start";
    if (planning)
        add_plan_options(desc, t);
    if (sub != "plan")
        add_state_option(desc, t);
    if (sub == "start")
        desc.add_options()("finish", po::value(&t.finish)->value_name("kexec|reboot"),
                           "after the last step, return by kexec or by a normal reboot "
                           "(default kexec)")(
            "no-systemd", po::bool_switch(&t.no_systemd),
            "install no unit; run 'hugetune boot-sweep continue' at each boot yourself");
    add_common_options(desc, t, sub == "plan" || sub == "status");
    po::variables_map vm;
    const std::string usage =
        "hugetune boot-sweep " + sub +
        (planning ? " [--threads LIST] [--pages P | --gib G] [--page-size SIZE] [--repetitions R] "
                    "[--init-on-alloc keep|0|1|0,1] [--hugetlb-free-vmemmap keep|on|off|on,off] "
                    "[--kernel FILE] [--initrd FILE|none]"
                  : "") +
        (sub != "plan" ? " [--state FILE]" : "") +
        (sub == "start" ? " [--finish kexec|reboot] [--no-systemd]" : "") +
        " [--root DIR] [--dry-run]" + (sub == "plan" || sub == "status" ? " [--json]" : "");
    if (!parse_options("boot-sweep " + sub, usage, desc, args, vm))
        return std::nullopt;
    BootSweepOptions o;
    if (planning)
        read_plan_options(t, vm, o);
    if (t.finish != "kexec" && t.finish != "reboot")
        usage_error("--finish", "must be kexec or reboot");
    o.finish = t.finish == "reboot" ? bs::Finish::reboot : bs::Finish::kexec;
    o.systemd = !t.no_systemd;
    o.dry_run = t.dry_run;
    o.json = t.json;
    if (!t.root.empty())
        o.root = root_option(t.root, "the root of the machine's files");
    o.state_given = !t.state.empty();
    if (o.state_given)
        o.state = t.state;
    return o;
}

// The state file as the machine sees it: what the unit names, and the path this command reads and
// writes in the tree (under --root inside DIR, never outside it: RootDir).
fs::path state_path(const BootSweepOptions& o, const KernelFs& kfs) {
    fs::path machine = o.state_given ? o.state : bs::kDefaultStatePath;
    const std::string last = machine.lexically_normal().filename().string();
    if (last.empty() || last == "." || last == ".." || !split_target_path(machine.string()))
        usage_error("--state", "'" + machine.string() +
                                   "' names a directory, not a file; give a file path such as " +
                                   bs::kDefaultStatePath.string());
    if (const auto problem = bs::unit_path_problem(machine.string()))
        usage_error("--state", "'" + printable_text(machine.string()) +
                                   "' is named in the boot sweep's systemd unit, and " + *problem);
    if (kfs.is_live())
        return fs::absolute(machine).lexically_normal();  // the unit names it from "/"
    if (!machine.is_absolute())
        usage_error("--state", "under --root give the path the machine sees, from its /");
    return machine;
}

// Before any effect: the state must be a file this command can replace, and on this machine one
// only root could have written, since what the sweep kexecs comes from it.
void require_usable_state(const fs::path& state, const KernelFs& kfs) {
    const auto [dir_path, name] = split_target_path(state.string()).value();
    const auto dir = kfs.root_dir().directory(dir_path);
    if (!dir)
        usage_error("--state", "directory " + kfs.shown(dir_path) +
                                   " does not exist; create it or choose another path");
    check_writable_at(dir->fd(), name, kfs.shown(state.string()), "--state");
    const auto st = dir->entry_status(name);
    if (!kfs.is_live() || !st)
        return;
    if (st->st_uid != geteuid() || (st->st_mode & (S_IWGRP | S_IWOTH)) != 0)
        throw UsageError("--state: " + state.string() +
                         " is writable by another user than root (owner uid " +
                         std::to_string(st->st_uid) +
                         ", or group or other write permission); a boot sweep kexecs what its "
                         "state says, so give it a file only root can write (chmod 0644, owned "
                         "by root)");
}

void require_root_for_kexec(const BootSweepOptions& o, const KernelFs& kfs,
                            const std::string& what) {
    if (kfs.is_live() && !o.dry_run)
        require_root("boot-sweep " + what +
                     " kexecs and changes the boot's units; run it as root (or with --dry-run)");
}

std::optional<std::string> first_existing(const KernelFs& kfs,
                                          const std::vector<std::string>& paths) {
    for (const auto& p : paths)
        if (kfs.exists(p))
            return p;
    return std::nullopt;
}

std::optional<std::string> given_file(const KernelFs& kfs, const std::optional<std::string>& path,
                                      const char* flag) {
    if (!path)
        return path;
    if (!is_plain_absolute_path(*path))
        usage_error(flag, "'" + *path +
                              "' is not an absolute path without '.' or '..' parts; name the "
                              "file as the machine sees it, e.g. /boot/vmlinuz-6.15.0");
    const OwnedFd file = kfs.root_dir().open_path(*path, O_PATH);
    if (!file.valid())
        usage_error(flag, kfs.shown(*path) + " does not exist; name an existing file");
    struct stat st {};
    if (fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode))
        usage_error(flag, kfs.shown(*path) + " is not a regular file; name the " +
                              (std::string(flag) == "--kernel" ? "kernel image" : "initrd") +
                              " itself");
    return path;
}

// /proc/meminfo "MemTotal": a kexec boot starts with all of it free, as a cold boot does.
std::uint64_t memory_total_bytes(const KernelFs& kfs) {
    if (auto bytes = system_meminfo_bytes(kfs, "MemTotal"))
        return *bytes;
    throw RuntimeError("cannot read MemTotal from " + kfs.shown("/proc/meminfo"));
}

bs::MachineFacts gather_facts(const BootSweepOptions& o, const KernelFs& kfs) {
    const Probe probe = probe_machine(kfs);
    bs::MachineFacts f;
    f.kernel_release = probe.kernel.release;
    f.online_cpus = std::max(1, probe.kernel.online_cpus);
    int nodes = 0;
    for (const NumaNode* node : probe.topology.memory_nodes())
        nodes += node->cpus.empty() ? 0 : 1;
    f.nodes = std::max(1, nodes);
    f.memory_total_bytes = memory_total_bytes(kfs);
    // The sweep's kexec runs on the machine the tree is: under --root, the tree's own.
    f.kexec_found =
        kfs.is_live() ? program_exists("kexec") : boot::program_in_root(kfs, "kexec").has_value();
    f.lockdown = kernel_lockdown_mode(kfs);
    f.kexec_load_disabled = kexec_sysctl(kfs, "kexec_load_disabled");
    f.kexec_load_limit_reboot = kexec_sysctl(kfs, "kexec_load_limit_reboot");
    const std::string rel = f.kernel_release;
    f.kernel_image = o.kernel ? given_file(kfs, o.kernel, "--kernel")
                              : first_existing(kfs, {"/boot/vmlinuz-" + rel});
    const std::vector<std::string> initrds = {"/boot/initrd.img-" + rel,
                                              "/boot/initramfs-" + rel + ".img"};
    f.initrd = o.initrd ? given_file(kfs, o.initrd, "--initrd") : first_existing(kfs, initrds);
    f.initrd_looked_for = initrds[0] + " and " + initrds[1];
    f.original_cmdline = std::string(trim(running_kernel_cmdline(kfs).value_or("")));
    f.hvo_sysctl = hugetlb_optimize_vmemmap(kfs).has_value();
    f.page_sizes = probe.kernel.page_sizes();
    return f;
}

// The state must outlive a kexec and a reboot: a file system in memory forgets it, and the next
// boot would find no state and stop the sweep.
void require_persistent(const fs::path& state, const KernelFs& kfs) {
    if (const auto dir = memory_filesystem_of(kfs.root_dir(), state.string()))
        throw SettingError("state", kfs.shown(state.string()) + " is on a file system in memory (" +
                                        kfs.shown(*dir) +
                                        "), lost at the next boot; give a file "
                                        "on persistent storage");
}

// Carries the transition out through the host (each effect printed instead under --root and
// --dry-run, by the host's Effects), saying what happens once the state is written and the
// image loaded, before the switch starts.
void carry_and_report(const bs::Transition& t, bs::Host& host, const fs::path& state) {
    const auto announce = [&t] {
        if (t.write_state && t.state.phase == bs::Phase::aborted)
            print_diagnostic("warning", t.message);
        else
            std::cout << printable_text(t.message) << "\n";
        if (t.write_result)
            std::cout << printable_lines(bs::format_result(bs::summarize(t.state)));
        std::cout.flush();
    };
    bs::carry_out(t, host, state, announce);
}

// One sweep per machine: the sweep named at the fixed place must not be in progress, whatever
// state file this start was given.
void require_no_other_sweep(const KernelFs& kfs) {
    const auto text = kfs.read(bs::kActiveSweepPath.string());
    const std::string named = text ? std::string(trim(*text)) : "";
    if (named.empty() || !fs::path(named).is_absolute())
        return;
    const std::string marker = kfs.shown(bs::kActiveSweepPath.string());
    std::optional<bs::State> other;
    try {
        other = bs::read_state(kfs.root_dir(), named);
    } catch (const std::exception& e) {
        throw BusyError("the boot sweep named in " + marker + " (" + named + ") cannot be read (" +
                        e.what() + "); see to it, and remove that file once no sweep runs");
    }
    if (other && other->in_progress())
        throw BusyError("a boot sweep is in progress (" + bs::to_string(other->phase) + ", " +
                        named + ", named in " + marker +
                        "); one sweep per machine: see 'hugetune boot-sweep status --state " +
                        named + "', or abort it first");
}

// The program the continue unit runs at each boot: this one on this machine; under --root the
// tree's own installed hugetune, since this machine's path means nothing to the tree's boots.
std::string unit_binary(const KernelFs& kfs, bool systemd) {
    if (kfs.is_live() || !systemd)
        return own_binary_path();
    if (auto installed = boot::program_in_root(kfs, "hugetune"))
        return *installed;
    throw UsageError("--root: " + kfs.root().string() +
                     " has no hugetune in /usr/local/sbin, /usr/local/bin, /usr/sbin, /usr/bin, "
                     "/sbin or /bin, and the boot sweep's unit would run it at each boot of that "
                     "system; install hugetune into the tree first, or give --no-systemd");
}

// What the continue unit runs at each boot for the sweep whose state file the machine sees at
// `state`.
std::vector<std::string> continue_command(const KernelFs& kfs, bool systemd,
                                          const fs::path& state) {
    return {unit_binary(kfs, systemd), "boot-sweep", "continue", "--state", state.string()};
}

// The locks every start, continue and abort holds while it reads and writes the sweep's files:
// on this machine the sweep's run lock; a tree under --root gets no file of ours, so its own
// directory is locked, and there a --dry-run takes none.
class SweepLocks {
  public:
    SweepLocks(const BootSweepOptions& o, const KernelFs& kfs)
        : tree_(kfs.is_live() || o.dry_run ? std::nullopt : kfs.root_dir().try_lock()) {
        if (kfs.is_live())
            run_.emplace(kDefaultRuntimeDir);
        else if (!o.dry_run && !tree_)
            throw BusyError("another hugetune command is working on " + kfs.root().string() +
                            "; wait for it to finish and run again");
    }

  private:
    std::optional<FileLock> tree_;
    std::optional<RunLock> run_;
};

// What a start, continue or abort killed between a temporary file and its rename left. Only
// under SweepLocks: every command that writes these files holds them.
void remove_sweep_temporaries(Effects& effects, const fs::path& state) {
    for (const fs::path& path : {fs::path(bs::kUnitDir) / bs::kUnitName, state,
                                 bs::result_path(state), bs::kActiveSweepPath})
        effects.remove_stale_temporaries_of(path.string());
}

int plan_command(const BootSweepOptions& o, const KernelFs& kfs) {
    const bs::Plan plan = bs::make_plan(gather_facts(o, kfs), o.request);
    bs::State preview;
    preview.plan = plan;
    if (o.json)
        std::cout << bs::to_json(preview)["plan"].dump(2) << "\n";
    else
        std::cout << printable_lines(bs::format_plan(plan));
    return 0;
}

int start_command(const BootSweepOptions& o, const KernelFs& kfs) {
    require_root_for_kexec(o, kfs, "start");
    const bs::Plan plan = bs::make_plan(gather_facts(o, kfs), o.request);
    const fs::path state = state_path(o, kfs);
    const std::vector<std::string> command = continue_command(kfs, o.systemd, state);
    const SweepLocks locks(o, kfs);
    if (const auto existing = bs::read_state(kfs.root_dir(), state.string());
        existing && existing->in_progress())
        throw BusyError("a boot sweep is in progress (" + bs::to_string(existing->phase) + ", " +
                        kfs.shown(state.string()) +
                        "); see 'hugetune boot-sweep status', or abort it first");
    require_no_other_sweep(kfs);
    require_persistent(state, kfs);
    if (!o.dry_run) {
        kfs.root_dir().make_directories(state.parent_path().string());
        require_usable_state(state, kfs);
    }
    Effects effects(kfs.root_dir(), o.dry_run, std::cout, flag_words());
    remove_sweep_temporaries(effects, state);
    bs::LiveHost host(kfs, effects, o.systemd, command, state);
    std::cout << printable_lines(bs::format_plan(plan));
    effects.write_file(bs::kActiveSweepPath.string(), state.string() + "\n");
    carry_and_report(bs::plan_start(plan, o.finish, o.systemd, host.this_boot()), host, state);
    return 0;
}

// continue and abort: the saved state and this boot decide the transition. Without a state
// continue has nothing to do (a boot after the sweep ended and removed nothing, or a caller
// running it at every boot); abort has nothing to stop. A state that cannot be written back is
// refused before anything is done.
int advance_command(const BootSweepOptions& o, const KernelFs& kfs, const std::string& sub,
                    bs::Transition (*decide)(bs::State, const bs::BootFacts&)) {
    require_root_for_kexec(o, kfs, sub);
    const fs::path state = state_path(o, kfs);
    const std::string shown = kfs.shown(state.string());
    const SweepLocks locks(o, kfs);
    auto saved = bs::read_state(kfs.root_dir(), state.string());
    if (!saved && sub == "abort")
        throw RuntimeError("no boot sweep state at " + shown + "; nothing to abort");
    if (!saved) {
        print_diagnostic("note", "no boot sweep state at " + shown + ": nothing to do");
        return 0;
    }
    if (!o.dry_run && saved->in_progress())
        require_usable_state(state, kfs);
    Effects effects(kfs.root_dir(), o.dry_run, std::cout, flag_words());
    remove_sweep_temporaries(effects, state);
    bs::LiveHost host(kfs, effects, saved->systemd, continue_command(kfs, saved->systemd, state),
                      state);
    carry_and_report(decide(std::move(*saved), host.this_boot()), host, state);
    return 0;
}

int status_command(const BootSweepOptions& o, const KernelFs& kfs) {
    const std::string state = state_path(o, kfs).string();
    const auto saved = bs::read_state(kfs.root_dir(), state);
    if (o.json) {
        nlohmann::json out = {
            {"state_file", kfs.shown(state)}, {"state", nullptr}, {"result", nullptr}};
        if (saved) {
            out["state"] = bs::to_json(*saved);
            out["result"] = bs::to_json(bs::summarize(*saved));
        }
        std::cout << out.dump(2) << "\n";
    } else if (!saved) {
        std::cout << "no boot sweep: no state at " << printable_text(kfs.shown(state)) << "\n";
    } else {
        std::cout << printable_lines(bs::format_status(*saved));
    }
    return 0;
}

}  // namespace

int run_boot_sweep(const Args& args) {
    const std::string subs = "plan, start, continue, status, abort";
    if (args.empty() || args.front() == "--help" || args.front() == "-h") {
        print_subcommands_help(
            args.empty() ? std::cerr : std::cout, "boot-sweep",
            {{"plan", "check everything and print each step's command line"},
             {"start", "write the state, enable the unit, kexec into the first step"},
             {"continue", "at each boot: record this step and kexec into the next"},
             {"status", "where the sweep stands, and its result once it has ended"},
             {"abort", "stop after the current boot and return to the original line"}});
        if (args.empty())
            throw UsageError("boot-sweep: give a subcommand (" + subs + ")");
        return 0;
    }
    const std::string sub = args.front();
    if (sub != "plan" && sub != "start" && sub != "continue" && sub != "status" && sub != "abort")
        throw UsageError("boot-sweep: unknown subcommand '" + sub + "'; give one of " + subs);
    const auto options = parse_sub(sub, Args(args.begin() + 1, args.end()));
    if (!options)
        return 0;
    const KernelFs kfs(options->root);
    if (sub == "plan")
        return plan_command(*options, kfs);
    if (sub == "start")
        return start_command(*options, kfs);
    if (sub == "continue")
        return advance_command(*options, kfs, sub, bs::plan_continue);
    if (sub == "abort")
        return advance_command(*options, kfs, sub, bs::plan_abort);
    return status_command(*options, kfs);
}

}  // namespace hugetune::cli
