#include "tuner/boot_sweep/host.hpp"

#include <optional>
#include <string>
#include <string_view>

#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/kernel/boot_log.hpp"
#include "tuner/kernel/kernel_files.hpp"

namespace hugetune::boot_sweep {
namespace {

// One word of a unit file's command line (systemd.service(5) "Command lines", systemd.unit(5)
// "Specifiers"): '%' starts a specifier and '$' a variable, each written twice to stand for
// itself; blanks, quotes, backslashes and ';' (which separates commands) are kept in a
// double-quoted word, inside which a quote and a backslash are escaped.
std::string unit_word(const std::string& word) {
    std::string escaped;
    bool quote = false;
    for (char c : word) {
        if (c == '%' || c == '$')
            escaped += c;
        if (c == '"' || c == '\\')
            escaped += '\\';
        quote = quote || c == ' ' || c == '\t' || c == '"' || c == '\'' || c == '\\' || c == ';';
        escaped += c;
    }
    return quote ? '"' + escaped + '"' : escaped;
}

// A path as the value of ConditionPathExists=, which takes it as it stands after its specifiers
// are expanded (systemd.unit(5) "Conditions and Asserts"): only '%' is written twice.
std::string unit_condition_path(const std::string& path) {
    std::string escaped;
    for (char c : path)
        escaped += c == '%' ? std::string("%%") : std::string(1, c);
    return escaped;
}

void require_unit_path(const std::string& path) {
    if (const auto problem = unit_path_problem(path))
        throw RuntimeError("the boot sweep's unit cannot name '" + printable_text(path) +
                           "': " + *problem);
}

}  // namespace

std::optional<std::string> unit_path_problem(std::string_view path) {
    // A line break would end the directive and let the rest of the path add lines of its own to
    // a unit that runs as root at every boot; no control character belongs in a path here.
    for (const char c : path)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return "it holds a control character (" + printable_text(std::string(1, c)) +
                   "); give a path without one";
    // systemd joins a line that ends in a backslash with the next, and strips the blanks at either
    // end of a value (systemd.syntax(7)).
    if (!path.empty() && (path.back() == '\\' || path.back() == ' ' || path.front() == ' '))
        return std::string(
            "it begins or ends with a blank or ends with a backslash, which a unit "
            "file cannot keep; give a path without them");
    return std::nullopt;
}

std::string unit_text(const std::vector<std::string>& command, const std::filesystem::path& state) {
    require_unit_path(state.string());
    std::string exec_start;
    for (const auto& word : command) {
        require_unit_path(word);
        exec_start += (exec_start.empty() ? "" : " ") + unit_word(word);
    }
    return "# Written by hugetune boot-sweep start; disabled and removed when the sweep ends.\n"
           "[Unit]\n"
           "Description=hugetune boot sweep: record this boot and kexec into the next step\n"
           "After=local-fs.target\n"
           "ConditionPathExists=" +
           unit_condition_path(state.string()) +
           "\n\n"
           "[Service]\n"
           "Type=oneshot\n"
           "TimeoutStartSec=" +
           std::to_string(kUnitTimeoutSeconds) +
           "\n"
           "ExecStart=" +
           exec_start +
           "\n\n"
           "[Install]\n"
           "WantedBy=multi-user.target\n";
}

LiveHost::LiveHost(const KernelFs& fs, Effects& effects, bool systemd,
                   std::vector<std::string> continue_command, std::filesystem::path state)
    : fs_(fs),
      effects_(effects),
      systemd_(systemd),
      continue_command_(std::move(continue_command)),
      state_(std::move(state)) {}

BootFacts LiveHost::this_boot() const {
    BootFacts b;
    // The boot id is what tells the boot that left for a step from the step's own boot.
    b.boot_id = running_boot_id(fs_).value_or("");
    if (b.boot_id.empty())
        throw RuntimeError("cannot read " + fs_.shown(kBootIdFile) +
                           ", which tells one boot from the next");
    b.kernel_release = running_kernel_release(fs_).value_or("");
    const auto cmdline = running_kernel_cmdline(fs_);
    if (!cmdline)
        throw RuntimeError("cannot read " + fs_.shown("/proc/cmdline"));
    b.cmdline = std::string(trim(*cmdline));
    b.log = fs_.kernel_log().messages;
    b.largest_buddy_block_kb = running_buddy_allocator(fs_).largest_block_kb();
    b.now = utc_now();
    b.hvo = hugetlb_optimize_vmemmap(fs_);
    return b;
}

void LiveHost::write_file(const std::filesystem::path& path, const std::string& bytes) {
    effects_.write_file(path.string(), bytes);
}

void LiveHost::load_kexec(const KexecImage& image, const std::string& cmdline) {
    // kexec takes the files by name: on this machine their own, under --root (where it is never
    // run, only printed) the tree's, as shown.
    std::vector<std::string> argv = {"kexec", "-l", fs_.shown(image.kernel)};
    if (image.initrd)
        argv.push_back("--initrd=" + fs_.shown(*image.initrd));
    argv.push_back("--append=" + cmdline);
    effects_.run(argv);
}

void LiveHost::exec_kexec() {
    // systemd stops the services and unmounts the file systems first; `kexec -e` does not.
    if (systemd_)
        effects_.run({"systemctl", "--no-block", "kexec"});
    else
        effects_.run({"kexec", "-e"});
}

void LiveHost::reboot() {
    effects_.run(systemd_ ? std::vector<std::string>{"systemctl", "--no-block", "reboot"}
                          : std::vector<std::string>{"reboot"});
}

// Under a tree other than "/", systemctl works on that tree's unit links.
std::vector<std::string> LiveHost::systemctl_argv(const std::string& verb) const {
    std::vector<std::string> argv = {"systemctl"};
    if (!fs_.is_live())
        argv.push_back("--root=" + fs_.root().string());
    argv.push_back(verb);
    argv.push_back(kUnitName);
    return argv;
}

void LiveHost::enable_unit() {
    effects_.write_file(std::string(kUnitDir) + "/" + kUnitName,
                        unit_text(continue_command_, state_));
    if (fs_.is_live())
        effects_.run({"systemctl", "daemon-reload"});
    effects_.run(systemctl_argv("enable"));
}

void LiveHost::disable_unit() {
    effects_.run(systemctl_argv("disable"));
    effects_.remove_file(std::string(kUnitDir) + "/" + kUnitName);
}

}  // namespace hugetune::boot_sweep
