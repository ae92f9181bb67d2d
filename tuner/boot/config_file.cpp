#include "tuner/boot/config_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "model/errors.hpp"
#include "tuner/boot/unified_diff.hpp"
#include "tuner/system/atomic_file.hpp"

namespace hugetune::boot {
namespace fs = std::filesystem;

namespace {

// A backup's name: "<file name>.hugetune-<UTC time>[-N].bak".
constexpr std::string_view kBackupInfix = ".hugetune-";
constexpr std::string_view kBackupSuffix = ".bak";

std::string too_large(const std::string& target_path, std::uintmax_t bytes) {
    return target_path + " is " + std::to_string(bytes) + " bytes, more than the " +
           std::to_string(kMaxConfigBytes / 1024) +
           " KiB hugetune reads of a boot configuration file (a real one is a few KiB); "
           "check what wrote it, and restore it from its package or backup";
}

// At most kMaxConfigBytes: a file that grew past them since its stat is refused too.
std::string read_all(const fs::path& path, const std::string& target_path) {
    std::ifstream in(path, std::ios::binary);
    std::string text(kMaxConfigBytes + 1, '\0');
    if (in)
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (in.bad() || (!in && !in.eof()))
        throw RuntimeError("cannot read " + target_path);
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxConfigBytes)
        throw UsageError(too_large(target_path, text.size()));
    return text;
}

std::optional<ConfigFile> read_at(const std::string& target_path, const fs::path& host_path) {
    struct stat st {};
    if (lstat(host_path.c_str(), &st) != 0) {
        if (errno == ENOENT)
            return std::nullopt;
        throw RuntimeError("cannot stat " + target_path + ": " + std::strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        throw UsageError(target_path +
                         " is a symbolic link; hugetune edits only regular "
                         "files: edit the file it points to by hand");
    if (!S_ISREG(st.st_mode))
        throw UsageError(target_path + " is not a regular file; hugetune will not edit it");
    if (static_cast<std::uintmax_t>(st.st_size) > kMaxConfigBytes)
        throw UsageError(too_large(target_path, static_cast<std::uintmax_t>(st.st_size)));
    ConfigFile f;
    f.target_path = target_path;
    f.host_path = host_path;
    f.mode = st.st_mode & 07777;
    f.uid = st.st_uid;
    f.gid = st.st_gid;
    f.text = read_all(host_path, target_path);
    return f;
}

}  // namespace

std::optional<ConfigFile> read_config_file(const KernelFs& root, const std::string& target_path) {
    return read_at(target_path, root.resolve(target_path, LastLink::keep));
}

std::string utc_timestamp(const char* format) {
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[64];
    std::strftime(buf, sizeof buf, format, &utc);
    return buf;
}

std::string backup_timestamp() {
    return utc_timestamp("%Y%m%dT%H%M%SZ");
}

std::string backup_path(const ConfigFile& file, const std::string& timestamp) {
    std::string suffix = std::string(kBackupInfix) + timestamp;
    fs::path host = file.host_path;
    std::string name = host.filename().string() + suffix;
    std::error_code ec;
    for (int n = 1; fs::exists(host.parent_path() / (name + std::string(kBackupSuffix)), ec); ++n)
        name = host.filename().string() + suffix + "-" + std::to_string(n);
    return (fs::path(file.target_path).parent_path() / (name + std::string(kBackupSuffix)))
        .string();
}

bool is_backup_name(std::string_view name, std::string_view file_name) {
    return name.size() > file_name.size() + kBackupInfix.size() + kBackupSuffix.size() &&
           name.starts_with(file_name) && name.substr(file_name.size()).starts_with(kBackupInfix) &&
           name.ends_with(kBackupSuffix);
}

std::vector<std::string> backups_beside(const KernelFs& root, const std::string& target_path) {
    const fs::path target(target_path);
    const std::string file_name = target.filename().string();
    std::vector<std::string> backups;
    for (const auto& name : root.list(target.parent_path().string()))
        if (is_backup_name(name, file_name))
            backups.push_back((target.parent_path() / name).string());
    return backups;
}

bool write_backup(Effects& effects, const ConfigFile& file, const std::string& backup,
                  const std::string& bytes) {
    return effects.write_file(file.host_path.parent_path() / fs::path(backup).filename(), bytes,
                              FileOwnership{file.mode, file.uid, file.gid}, "");
}

bool replace_config_file(Effects& effects, const ConfigFile& file, const std::string& text) {
    auto now = read_at(file.target_path, file.host_path);
    if (!now || now->text != file.text)
        throw RuntimeError(file.target_path +
                           " changed while hugetune was editing it; nothing was written to it. "
                           "Run the command again");
    return effects.write_file(
        file.host_path, text, FileOwnership{file.mode, file.uid, file.gid},
        unified_diff(file.text, text, "a" + file.target_path, "b" + file.target_path));
}

}  // namespace hugetune::boot
