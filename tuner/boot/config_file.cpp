#include "tuner/boot/config_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <string>

#include "model/errors.hpp"
#include "tuner/boot/unified_diff.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/owned_fd.hpp"
#include "tuner/system/root_dir.hpp"

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
std::string read_all(int fd, const std::string& target_path) {
    std::string text(kMaxConfigBytes + 1, '\0');
    std::size_t have = 0;
    while (have < text.size()) {
        const ssize_t n = ::read(fd, text.data() + have, text.size() - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw RuntimeError("cannot read " + target_path + ": " + std::strerror(errno));
        if (n == 0)
            break;
        have += static_cast<std::size_t>(n);
    }
    text.resize(have);
    if (text.size() > kMaxConfigBytes)
        throw UsageError(too_large(target_path, text.size()));
    return text;
}

// Whether the entry at `target_path` is itself a symbolic link.
bool is_link(const RootDir& root, const std::string& target_path) {
    const OwnedFd fd = root.open_path(target_path, O_PATH | O_NOFOLLOW);
    struct stat st {};
    return fd.valid() && fstat(fd.get(), &st) == 0 && S_ISLNK(st.st_mode);
}

// The file itself, opened inside the root without following a link at its name. O_NONBLOCK: a
// FIFO there is refused by its type, not waited on.
OwnedFd open_config(const RootDir& root, const std::string& target_path) {
    OwnedFd fd = root.open_path(target_path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    if (fd.valid() || errno == ENOENT)
        return fd;
    const int err = errno;
    if (err == ELOOP && is_link(root, target_path))
        throw UsageError(target_path +
                         " is a symbolic link; hugetune edits only regular "
                         "files: edit the file it points to by hand");
    throw RuntimeError("cannot open " + target_path + ": " + std::strerror(err));
}

std::optional<ConfigFile> read_at(const RootDir& root, const std::string& target_path) {
    const OwnedFd fd = open_config(root, target_path);
    if (!fd.valid())
        return std::nullopt;
    struct stat st {};
    if (fstat(fd.get(), &st) != 0)
        throw RuntimeError("cannot stat " + target_path + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw UsageError(target_path + " is not a regular file; hugetune will not edit it");
    if (static_cast<std::uintmax_t>(st.st_size) > kMaxConfigBytes)
        throw UsageError(too_large(target_path, static_cast<std::uintmax_t>(st.st_size)));
    ConfigFile f;
    f.target_path = target_path;
    f.mode = st.st_mode & 07777;
    f.uid = st.st_uid;
    f.gid = st.st_gid;
    f.text = read_all(fd.get(), target_path);
    return f;
}

}  // namespace

std::optional<ConfigFile> read_config_file(const KernelFs& root, const std::string& target_path) {
    return read_at(root.root_dir(), target_path);
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

std::string backup_path(const RootDir& root, const ConfigFile& file, const std::string& timestamp) {
    const fs::path target(file.target_path);
    const std::string stem = target.filename().string() + std::string(kBackupInfix) + timestamp;
    const auto dir = root.directory(target.parent_path().string());
    std::string name = stem + std::string(kBackupSuffix);
    for (int n = 1; dir && dir->entry_status(name); ++n)
        name = stem + "-" + std::to_string(n) + std::string(kBackupSuffix);
    return (target.parent_path() / name).string();
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
    const fs::path beside = fs::path(file.target_path).parent_path() / fs::path(backup).filename();
    return effects.write_file(beside.string(), bytes, FileOwnership{file.mode, file.uid, file.gid},
                              "");
}

bool replace_config_file(Effects& effects, const ConfigFile& file, const std::string& text) {
    auto now = read_at(effects.root(), file.target_path);
    if (!now || now->text != file.text)
        throw RuntimeError(file.target_path +
                           " changed while hugetune was editing it; nothing was written to it. "
                           "Run the command again");
    return effects.write_file(
        file.target_path, text, FileOwnership{file.mode, file.uid, file.gid},
        unified_diff(file.text, text, "a" + file.target_path, "b" + file.target_path));
}

}  // namespace hugetune::boot
