#include "tuner/boot/unified_diff.hpp"

#include <algorithm>
#include <vector>

#include "model/text.hpp"

namespace hugetune::boot {
namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t nl = text.find('\n', at);
        std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
        lines.push_back(text.substr(at, end - at));
        at = end;
    }
    return lines;
}

enum class Op { same, del, add };
struct Step {
    Op op;
    std::size_t old_line, new_line;  // 0-based index into each side (the one that applies)
};

// Common prefix and suffix first, then a longest-common-subsequence table over the rest
// (configuration edits touch a few lines, so the table stays small). Too large a middle is
// shown as a whole deletion and insertion: still a correct diff.
std::vector<Step> edit_script(const std::vector<std::string_view>& a,
                              const std::vector<std::string_view>& b) {
    std::size_t pre = 0;
    while (pre < a.size() && pre < b.size() && a[pre] == b[pre])
        ++pre;
    std::size_t suf = 0;
    while (suf < a.size() - pre && suf < b.size() - pre &&
           a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
        ++suf;
    std::size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
    std::vector<Step> steps;
    for (std::size_t i = 0; i < pre; ++i)
        steps.push_back({Op::same, i, i});
    if (n * m <= 4'000'000) {
        std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
        for (std::size_t i = n; i-- > 0;)
            for (std::size_t j = m; j-- > 0;)
                lcs[i][j] = a[pre + i] == b[pre + j] ? lcs[i + 1][j + 1] + 1
                                                     : std::max(lcs[i + 1][j], lcs[i][j + 1]);
        std::size_t i = 0, j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && a[pre + i] == b[pre + j]) {
                steps.push_back({Op::same, pre + i++, pre + j++});
            } else if (j < m && (i == n || lcs[i][j + 1] > lcs[i + 1][j])) {
                steps.push_back({Op::add, pre + i, pre + j++});
            } else {
                steps.push_back({Op::del, pre + i++, pre + j});
            }
        }
    } else {
        for (std::size_t i = 0; i < n; ++i)
            steps.push_back({Op::del, pre + i, pre});
        for (std::size_t j = 0; j < m; ++j)
            steps.push_back({Op::add, pre + n, pre + j});
    }
    for (std::size_t k = 0; k < suf; ++k)
        steps.push_back({Op::same, pre + n + k, pre + m + k});
    return steps;
}

std::string range(std::size_t start0, std::size_t count) {
    // GNU diff: "start,count", the start alone for one line, the line before for none.
    if (count == 1)
        return std::to_string(start0 + 1);
    return std::to_string(count == 0 ? start0 : start0 + 1) + "," + std::to_string(count);
}

// A line's own bytes are escaped as all printed text is (printable_text): a carriage return or
// an escape sequence in a file must not rewrite the lines around it on a terminal.
void put_line(std::string& out, char prefix, std::string_view line) {
    out.push_back(prefix);
    const bool ended = !line.empty() && line.back() == '\n';
    out.append(printable_text(ended ? line.substr(0, line.size() - 1) : line));
    out.append(ended ? "\n" : "\n\\ No newline at end of file\n");
}

}  // namespace

std::string unified_diff(std::string_view old_text, std::string_view new_text,
                         std::string_view old_label, std::string_view new_label) {
    if (old_text == new_text)
        return {};
    constexpr std::size_t context = 3;
    auto a = lines_of(old_text), b = lines_of(new_text);
    auto steps = edit_script(a, b);
    // A file name with a line break in it would otherwise start a line of its own in the diff.
    std::string out =
        "--- " + printable_text(old_label) + "\n+++ " + printable_text(new_label) + "\n";
    std::size_t k = 0;
    while (k < steps.size()) {
        while (k < steps.size() && steps[k].op == Op::same)
            ++k;
        if (k == steps.size())
            break;
        std::size_t begin = k >= context ? k - context : 0;
        // Extend the hunk while the next change is within 2 * context unchanged lines.
        std::size_t end = k;
        while (true) {
            while (end < steps.size() && steps[end].op != Op::same)
                ++end;
            std::size_t next = end;
            while (next < steps.size() && steps[next].op == Op::same)
                ++next;
            if (next < steps.size() && next - end <= 2 * context) {
                end = next;
                continue;
            }
            end = std::min(steps.size(), end + context);
            break;
        }
        std::size_t old_count = 0, new_count = 0;
        for (std::size_t s = begin; s < end; ++s) {
            if (steps[s].op != Op::add)
                ++old_count;
            if (steps[s].op != Op::del)
                ++new_count;
        }
        out += "@@ -" + range(steps[begin].old_line, old_count) + " +" +
               range(steps[begin].new_line, new_count) + " @@\n";
        for (std::size_t s = begin; s < end; ++s) {
            const auto& st = steps[s];
            if (st.op == Op::same)
                put_line(out, ' ', a[st.old_line]);
            if (st.op == Op::del)
                put_line(out, '-', a[st.old_line]);
            if (st.op == Op::add)
                put_line(out, '+', b[st.new_line]);
        }
        k = end;
    }
    return out;
}

}  // namespace hugetune::boot
