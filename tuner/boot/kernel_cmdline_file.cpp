#include "tuner/boot/kernel_cmdline_file.hpp"

#include "model/errors.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot {

std::string edit_kernel_cmdline_text(const std::string& path, const std::string& text,
                                     const std::optional<std::string>& value) {
    std::vector<WordPiece> pieces;
    for (std::size_t i = 0; i < text.size(); ++i) {
        auto b = static_cast<unsigned char>(text[i]);
        if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f)
            throw UsageError(path + ": binary data at byte " + std::to_string(i) +
                             "; this is not a kernel command line file; fix it by hand");
        WordPiece p;
        p.ch = text[i];
        p.begin = i;
        p.end = i + 1;
        pieces.push_back(p);
    }
    if (value && !is_safe_param_value(*value))
        throw UsageError("refusing to write hugepage_alloc_threads=" + *value);
    // What follows a bare "--" goes to init, never to the kernel's parameters
    // (docs/kernel-facts.md "Kernel command line syntax"): nothing there is edited, and a new
    // parameter goes before it.
    const std::size_t init_at = init_args_offset(text);
    if (init_at != std::string::npos)
        pieces.resize(init_at);
    std::vector<Replacement> changes;
    bool kept = edit_param_tokens(pieces, kAllocThreadsParam, value, changes);
    if (value && !kept) {
        std::string param = std::string(kAllocThreadsParam) + "=" + *value;
        std::size_t end = text.find_last_not_of(" \t\r\n");
        if (init_at != std::string::npos)
            changes.push_back({init_at, init_at, param + " "});
        else if (end == std::string::npos)
            changes.push_back({0, 0, param + (text.empty() ? "\n" : "")});
        else
            changes.push_back({end + 1, end + 1, " " + param});
    }
    return apply_replacements(text, changes);
}

std::optional<std::string> kernel_cmdline_alloc_threads(const std::string& text) {
    return kernel_alloc_threads(std::string_view(text)).value;
}

}  // namespace hugetune::boot
