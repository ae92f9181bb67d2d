// A directory held open by its descriptor, whose entries are reached one plain name at a time
// without following a symbolic link (openat() with O_NOFOLLOW, unlinkat() on the descriptor):
// a link planted inside it cannot lead a write or a removal out of it, whatever a path kept in
// a file names. For outputs that are a whole directory (`fleet export --out DIR`).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune {

class ContainedDir {
  public:
    // `path`, created (mode 0755) when absent. Throws UsageError "OPTION: problem; fix" when it
    // is a symbolic link or not a directory, RuntimeError naming it on any other failure.
    static ContainedDir open(const std::filesystem::path& path, std::string_view option_name);

    ContainedDir(ContainedDir&& other) noexcept;
    ContainedDir& operator=(ContainedDir&&) = delete;
    ContainedDir(const ContainedDir&) = delete;
    ContainedDir& operator=(const ContainedDir&) = delete;
    ~ContainedDir();

    const std::filesystem::path& path() const { return path_; }

    // The subdirectory `name` (one plain name), created when absent. Throws UsageError naming
    // it and the option of open() when it is a symbolic link or not a directory.
    ContainedDir subdirectory(const std::string& name) const;
    // The subdirectory `name` as it stands: nothing when it is absent, a link or no directory.
    std::optional<ContainedDir> existing_subdirectory(const std::string& name) const;

    // write_file_atomically of the entry `name`, in this directory.
    void write_file(const std::string& name, std::string_view bytes) const;
    // The bytes of the regular file `name`; nothing when it is absent, a link or not a regular
    // file.
    std::optional<std::string> read_file(const std::string& name) const;
    // Removes the entry `name` when it is a regular file (never a link, never through one):
    // whether it did. Throws RuntimeError naming it when the removal fails.
    bool remove_file(const std::string& name) const;
    // Removes the subdirectory `name` when it is an empty directory: whether it did.
    bool remove_empty_subdirectory(const std::string& name) const;

  private:
    ContainedDir(int fd, std::filesystem::path path, std::string option_name)
        : fd_(fd), path_(std::move(path)), option_name_(std::move(option_name)) {}
    int fd_;
    std::filesystem::path path_;
    std::string option_name_;  // named in a refusal
};

// The parts of `relative_path` ("group_vars/x.yml": "group_vars", "x.yml") when every one is a
// plain name: not empty, not "." or "..", no leading or trailing '/'; nothing otherwise.
std::optional<std::vector<std::string>> plain_parts(std::string_view relative_path);

}  // namespace hugetune
