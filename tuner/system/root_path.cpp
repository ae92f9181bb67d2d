#include "tuner/system/root_path.hpp"

#include <algorithm>
#include <iterator>
#include <string>

namespace hugetune {
namespace fs = std::filesystem;

namespace {

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

// Whether the link at `link` leads out of `canonical_root` as this machine's lookup follows it:
// where it lands physically, every link and ".." on the way followed as hwloc's open will (a
// "b/.." over a link b goes to the parent of b's target, not back to b's folder). A link that
// lands nowhere (dangling, a loop) leads nowhere to read; one that points out of the tree by its
// text is refused all the same, since what it names may appear.
bool leads_out(const fs::path& canonical_root, const fs::path& link) {
    std::error_code ec;
    const fs::path lands = fs::canonical(link, ec);
    if (!ec)
        return !lexically_inside(canonical_root, lands);
    const fs::path target = fs::read_symlink(link, ec);
    return ec || !lexically_inside(canonical_root,
                                   target.is_absolute() ? target : link.parent_path() / target);
}

}  // namespace

std::optional<fs::path> link_out_of_root(const fs::path& root, std::string_view dir) {
    std::error_code ec;
    const fs::path canonical_root = fs::canonical(root, ec);
    if (ec)
        return std::nullopt;
    // hwloc opens the root, then every file by its path from there: the folder itself may be the
    // link that leads out.
    const fs::path top = canonical_root / fs::path(dir).relative_path();
    if (fs::is_symlink(top, ec) && leads_out(canonical_root, top))
        return top;
    if (!fs::is_directory(top, ec))
        return std::nullopt;
    fs::recursive_directory_iterator it(top, fs::directory_options::skip_permission_denied, ec);
    for (fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec))
        if (it->is_symlink(ec) && leads_out(canonical_root, it->path()))
            return it->path();
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
