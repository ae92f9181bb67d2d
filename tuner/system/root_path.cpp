#include "tuner/system/root_path.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <iterator>
#include <string>
#include <vector>

#include "model/errors.hpp"

namespace hugetune {
namespace fs = std::filesystem;

namespace {

// The kernel gives up after 40 links in one lookup (MAXSYMLINKS, include/linux/namei.h).
constexpr int kMaxLinks = 40;

void push_components(std::string_view path, std::deque<std::string>& todo, bool front) {
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (i < path.size()) {
        std::size_t j = path.find('/', i);
        if (j == std::string_view::npos)
            j = path.size();
        if (j > i)
            parts.emplace_back(path.substr(i, j - i));
        i = j + 1;
    }
    if (front)
        todo.insert(todo.begin(), parts.begin(), parts.end());
    else
        todo.insert(todo.end(), parts.begin(), parts.end());
}

fs::path joined(const fs::path& root, const std::vector<std::string>& parts) {
    fs::path p = root;
    for (const auto& part : parts)
        p /= part;
    return p;
}

// The host path of `target_path` inside `root`, each part checked with lstat() as a chroot into
// `root` would resolve it. A check only, for link_out_of_root: what it finds may change before
// anything opens it.
fs::path resolve_in_root(const fs::path& root, std::string_view target_path) {
    // `done` holds real directories (or, once `missing`, names that do not exist yet), so ".."
    // over it is the parent on disk and stops at the root, as RESOLVE_IN_ROOT does.
    std::vector<std::string> done;
    std::deque<std::string> todo;
    push_components(target_path, todo, false);
    bool missing = false;
    int links = 0;
    while (!todo.empty()) {
        std::string part = std::move(todo.front());
        todo.pop_front();
        if (part == ".")
            continue;
        if (part == "..") {
            if (!done.empty())
                done.pop_back();
            continue;
        }
        if (missing) {
            done.push_back(std::move(part));
            continue;
        }
        const fs::path host = joined(root, done) / part;
        struct stat st {};
        if (lstat(host.c_str(), &st) != 0) {
            missing = true;  // absent, or not a directory on the way: the open says which
            done.push_back(std::move(part));
            continue;
        }
        if (!S_ISLNK(st.st_mode)) {
            done.push_back(std::move(part));
            continue;
        }
        if (++links > kMaxLinks)
            throw RuntimeError(std::string(target_path) + " under " + root.string() +
                               ": more than 40 symbolic links on the way (a loop?); fix the "
                               "links in that tree");
        std::error_code ec;
        const std::string target = fs::read_symlink(host, ec).string();
        if (ec || target.empty()) {
            missing = true;
            done.push_back(std::move(part));
            continue;
        }
        if (target.front() == '/')
            done.clear();  // an absolute link starts again at the root, not at this machine's /
        push_components(target, todo, true);
    }
    return joined(root, done);
}

// `host_path` inside `root`, taken lexically.
bool lexically_inside(const fs::path& root, const fs::path& host_path) {
    const fs::path r = root.lexically_normal();
    const fs::path h = host_path.lexically_normal();
    auto [ri, hi] = std::mismatch(r.begin(), r.end(), h.begin(), h.end());
    // A root written with a trailing '/' ends in an empty component.
    if (ri != r.end() && !(std::next(ri) == r.end() && ri->empty()))
        return false;
    for (; hi != h.end(); ++hi)
        if (*hi == "..")
            return false;
    return true;
}

}  // namespace

std::optional<fs::path> link_out_of_root(const fs::path& root, std::string_view dir) {
    std::error_code ec;
    const fs::path canonical_root = fs::weakly_canonical(root, ec);
    const fs::path start = resolve_in_root(canonical_root, dir);
    if (ec || !fs::is_directory(start, ec))
        return std::nullopt;
    fs::recursive_directory_iterator it(start, fs::directory_options::skip_permission_denied, ec);
    for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
        if (!it->is_symlink(ec))
            continue;
        // Where the link points, taken lexically: following it to find out would be the very
        // lookup out of the tree this guards against.
        const fs::path target = fs::read_symlink(it->path(), ec);
        const fs::path lands = target.is_absolute() ? target : it->path().parent_path() / target;
        if (ec || !lexically_inside(canonical_root, lands))
            return it->path();
    }
    return std::nullopt;
}

bool is_plain_absolute_path(std::string_view path) {
    if (path.size() < 2 || path.front() != '/' || path.back() == '/')
        return false;
    std::size_t i = 1;
    while (i <= path.size()) {
        std::size_t j = path.find('/', i);
        if (j == std::string_view::npos)
            j = path.size();
        const std::string_view part = path.substr(i, j - i);
        if (part.empty() || part == "." || part == ".." ||
            part.find('\0') != std::string_view::npos)
            return false;
        i = j + 1;
    }
    return true;
}

}  // namespace hugetune
