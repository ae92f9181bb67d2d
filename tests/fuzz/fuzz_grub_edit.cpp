// libFuzzer target for the /etc/default/grub reader and editor. For any input, either the
// reader refuses it with a line number inside the file, or the editor refuses it with a
// UsageError, or the edit yields a file that reads back, gives the kernel exactly the
// requested value, and does not change when applied again. Anything else aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "model/errors.hpp"
#include "tuner/boot/grub_config.hpp"
#include "tuner/boot/shell_fragment.hpp"

using namespace hugetune;
using namespace hugetune::boot;

namespace {

void check(bool ok) {
    if (!ok)
        std::abort();
}

void check_edit(const std::string& text, const std::optional<std::string>& value) {
    std::string out;
    try {
        out = edit_grub_text(text, value);
    } catch (const UsageError&) {
        return;  // a documented refusal
    }
    std::vector<GrubSource> after{parse_grub_source("/etc/default/grub", out)};
    check(effective_alloc_threads(after) == value);
    check(edit_grub_text(out, value) == out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    ShellFragment parsed;
    try {
        parsed = parse_shell_fragment(text);
    } catch (const ShellParseError& e) {
        std::size_t lines = 1;
        for (char c : text)
            lines += c == '\n';
        check(e.line() >= 1 && e.line() <= lines);
        return 0;
    }
    std::size_t previous_end = 0;
    for (const auto& a : parsed.assignments) {
        check(a.value_begin >= previous_end && a.value_begin <= a.value_end &&
              a.value_end <= text.size());
        for (const auto& p : a.value)
            check(p.begin >= a.value_begin && p.begin < p.end && p.end <= a.value_end);
        previous_end = a.value_end;
    }
    check_edit(text, std::string("32"));
    check_edit(text, std::nullopt);
    return 0;
}
