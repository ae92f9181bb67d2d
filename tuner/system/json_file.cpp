#include "tuner/system/json_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "model/input/fit_input.hpp"
#include "model/input/json_text.hpp"
#include "model/text.hpp"
#include "tuner/system/owned_fd.hpp"

namespace hugetune {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void refuse(const JsonFileErrors& errors, const Message& message) {
    if (errors.stored)
        throw RuntimeError(message);
    throw UsageError(message);
}

}  // namespace

std::optional<std::string> read_document_file(const fs::path& file) {
    const OwnedFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    return fd.valid() ? read_document_fd(fd.get()) : std::nullopt;
}

std::optional<std::string> read_document_fd(int fd) {
    constexpr std::size_t kLimit = static_cast<std::size_t>(model::kMaxInputBytes) + 1;
    struct stat st {};
    std::size_t size = ::fstat(fd, &st) == 0 && st.st_size > 0
                           ? std::min(static_cast<std::size_t>(st.st_size) + 1, kLimit)
                           : std::size_t{1} << 16;
    std::string bytes(size, '\0');
    std::size_t have = 0;
    for (;;) {
        if (have == bytes.size()) {  // grew since fstat, or fstat knew no size
            if (bytes.size() >= kLimit)
                break;
            bytes.resize(std::min(bytes.size() * 2, kLimit));
        }
        const ssize_t n = ::read(fd, bytes.data() + have, bytes.size() - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return std::nullopt;
        if (n == 0)
            break;
        have += static_cast<std::size_t>(n);
    }
    bytes.resize(have);
    return bytes;
}

std::optional<std::string> read_document_bytes(std::istream& in, std::uintmax_t size_hint) {
    std::string bytes;
    char buffer[1 << 16];
    bytes.reserve(static_cast<std::size_t>(std::min(size_hint, model::kMaxInputBytes + 1)) +
                  sizeof buffer);
    while (bytes.size() <= model::kMaxInputBytes && in.read(buffer, sizeof buffer))
        bytes.append(buffer, sizeof buffer);
    if (in.bad())
        return std::nullopt;
    if (bytes.size() <= model::kMaxInputBytes)
        bytes.append(buffer, static_cast<std::size_t>(in.gcount()));
    return bytes;
}

nlohmann::json parse_json_text(const std::string& name, const std::string& text,
                               const nlohmann::json::parser_callback_t& callback,
                               const JsonFileErrors& errors) {
    try {
        return model::parse_json_document(text, callback);
    } catch (const model::JsonTextError& e) {
        if (e.beyond_bounds())
            refuse(errors, name + ": " + e.what() + ", the most hugetune reads; " + errors.fix);
        std::string where;
        if (e.byte() > 0) {
            std::size_t offset = std::min<std::size_t>(e.byte() - 1, text.size());
            std::size_t line = 1, column = 1;
            for (std::size_t i = 0; i < offset; ++i) {
                if (text[i] == '\n') {
                    ++line;
                    column = 1;
                } else {
                    ++column;
                }
            }
            where = ":" + std::to_string(line) + ":" + std::to_string(column);
        }
        refuse(errors,
               name + where + ": not valid JSON (" + printable_text(e.what()) + "); " + errors.fix);
    }
}

nlohmann::json read_json_file(const fs::path& file, const JsonFileErrors& errors) {
    const std::string name = file.string();
    std::error_code ec;
    if (fs::is_directory(file, ec))
        refuse(errors, name + ": is a directory; give a JSON file");
    if (!fs::exists(file, ec))
        refuse(errors, name + ": no such file");
    const auto text = read_document_file(file);
    if (!text)
        refuse(errors, name + ": cannot be read; check its permissions");
    if (text->find_first_not_of(" \t\r\n") == std::string::npos)
        refuse(errors, name + ": the file is empty; give a JSON document");
    return parse_json_text(name, *text, nullptr, errors);
}

std::optional<nlohmann::json> read_json_file_if_readable(const fs::path& file,
                                                         const JsonFileErrors& errors) {
    std::error_code ec;
    if (!fs::exists(file, ec))
        return std::nullopt;
    if (fs::is_directory(file, ec))
        refuse(errors, file.string() + ": is a directory; give a JSON file");
    const auto text = read_document_file(file);
    if (!text)
        return std::nullopt;
    return parse_json_text(file.string(), *text, nullptr, errors);
}

namespace {

enum class Unreadable { error, nothing };

std::optional<nlohmann::json> read_json_in_root(const RootDir& root, std::string_view target_path,
                                                const JsonFileErrors& errors,
                                                Unreadable unreadable) {
    const std::string name = root.shown(target_path);
    // O_NONBLOCK: a FIFO planted there is refused by its type instead of waited on.
    const OwnedFd fd = root.open_path(target_path, O_RDONLY | O_NONBLOCK);
    if (!fd.valid() && (errno == ENOENT || errno == ENOTDIR))
        return std::nullopt;
    if (!fd.valid() && errno == EACCES && unreadable == Unreadable::nothing)
        return std::nullopt;
    if (!fd.valid())
        refuse(errors,
               name + ": cannot be read (" + std::strerror(errno) + "); check its permissions");
    struct stat st {};
    if (::fstat(fd.get(), &st) == 0 && S_ISDIR(st.st_mode))
        refuse(errors, name + ": is a directory; give a JSON file");
    if (!S_ISREG(st.st_mode))
        refuse(errors, name + ": is not a regular file; give a JSON file");
    const auto text = read_document_fd(fd.get());
    if (!text)
        refuse(errors, name + ": cannot be read; check its permissions");
    if (text->find_first_not_of(" \t\r\n") == std::string::npos)
        refuse(errors, name + ": the file is empty; give a JSON document");
    return parse_json_text(name, *text, nullptr, errors);
}

}  // namespace

std::optional<nlohmann::json> read_json_file(const RootDir& root, std::string_view target_path,
                                             const JsonFileErrors& errors) {
    return read_json_in_root(root, target_path, errors, Unreadable::error);
}

std::optional<nlohmann::json> read_json_file_if_readable(const RootDir& root,
                                                         std::string_view target_path,
                                                         const JsonFileErrors& errors) {
    return read_json_in_root(root, target_path, errors, Unreadable::nothing);
}

}  // namespace hugetune
