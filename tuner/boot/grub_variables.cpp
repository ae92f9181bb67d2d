#include "tuner/boot/grub_variables.hpp"

#include <algorithm>

#include "model/errors.hpp"
#include "tuner/boot/kernel_cmdline_file.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot {
namespace {

bool is_grub_name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// grub-editenv writes `\` and newline escaped (grub-core/lib/envblk.c).
std::string unescaped(std::string_view value) {
    std::string out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '\\' && i + 1 < value.size()) {
            ++i;
            out.push_back(value[i] == 'n' ? '\n' : value[i]);
        } else {
            out.push_back(value[i]);
        }
    }
    return out;
}

Argv editenv_command(const GrubEnv& env, const std::string& name, const std::string& value) {
    std::string tool = env.path.starts_with("/boot/grub2/") ? "grub2-editenv" : "grub-editenv";
    std::string without = edit_kernel_cmdline_text(env.path, value, std::nullopt);
    return {tool, env.path, "set", name + "=" + without};
}

}  // namespace

std::vector<GrubVariableRef> grub_variable_refs(std::string_view text) {
    std::vector<GrubVariableRef> refs;
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != '$')
            continue;
        std::size_t start = i;
        if (text[i + 1] == '{') {
            std::size_t close = text.find('}', i + 2);
            if (close == std::string_view::npos)
                continue;
            refs.push_back({std::string(text.substr(i + 2, close - i - 2)), start});
            i = close;
        } else if (is_grub_name_char(text[i + 1])) {
            std::size_t end = i + 1;
            while (end < text.size() && is_grub_name_char(text[end]))
                ++end;
            refs.push_back({std::string(text.substr(i + 1, end - i - 1)), start});
            i = end - 1;
        } else if (std::string_view("?#*@").find(text[i + 1]) != std::string_view::npos) {
            refs.push_back({std::string(1, text[i + 1]), start});
            ++i;
        }
    }
    return refs;
}

GrubEnv read_grubenv(const KernelFs& root) {
    GrubEnv env;
    for (const char* path : {"/boot/grub2/grubenv", "/boot/grub/grubenv"}) {
        auto text = root.read(path);
        if (!text)
            continue;
        env.path = path;
        std::size_t at = 0;
        while (at < text->size()) {
            std::size_t nl = text->find('\n', at);
            std::string_view line(text->data() + at,
                                  (nl == std::string::npos ? text->size() : nl) - at);
            at = nl == std::string::npos ? text->size() : nl + 1;
            std::size_t eq = line.find('=');
            if (line.empty() || line[0] == '#' || eq == std::string_view::npos)
                continue;
            env.values[std::string(line.substr(0, eq))] = unescaped(line.substr(eq + 1));
        }
        break;
    }
    return env;
}

void check_grub_variable(const GrubVariableRef& ref, const std::string& where,
                         const BootVariables& vars, const std::string& value,
                         std::vector<std::string>& warnings) {
    const std::string shown = "$" + ref.name;
    auto found = vars.grubenv.values.find(ref.name);
    bool tuned_var = ref.name == kTunedParamsVar;
    if (found == vars.grubenv.values.end() && !tuned_var)
        throw UsageError(
            where + ": " + shown + " is a grub variable that " +
            (vars.grubenv.path.empty()
                 ? std::string("no grub environment block (/boot/grub2/grubenv, "
                               "/boot/grub/grubenv) sets")
                 : vars.grubenv.path + " does not set") +
            " (grub.cfg may set it at boot), so hugetune cannot know whether it gives the "
            "kernel another " +
            std::string(kAllocThreadsParam) +
            "= after the one hugetune writes: write its value in its place, then run hugetune "
            "again");
    std::optional<std::string> theirs;
    if (found != vars.grubenv.values.end()) {
        theirs = kernel_alloc_threads(std::string_view(found->second)).value;
        if (theirs && *theirs != value) {
            std::string fix =
                tuned_var && vars.tuned.active()
                    ? "have tuned write it again from its profiles: " +
                          format_command(tuned_reapply_command(vars.tuned))
                    : "remove it there: " +
                          format_command(editenv_command(vars.grubenv, ref.name, found->second));
            throw UsageError(where + ": " + shown + " expands to " + ref.name + " from " +
                             vars.grubenv.path + ", which holds " + alloc_threads_param(*theirs) +
                             " and could come after the value hugetune writes (the last one "
                             "wins); " +
                             fix + ", then run hugetune again");
        }
    }
    // Where tuned already puts the value asked for, check_tuned says so; the warning is for a
    // tuned that puts none.
    const bool tuned_sets_one =
        theirs || (vars.tuned.boot_cmdline &&
                   kernel_alloc_threads(std::string_view(*vars.tuned.boot_cmdline)).value);
    if (tuned_var && vars.tuned.active() && !tuned_sets_one) {
        std::string warning = tuned_follows_warning(vars.tuned, value);
        if (std::find(warnings.begin(), warnings.end(), warning) == warnings.end())
            warnings.push_back(warning);
    }
}

}  // namespace hugetune::boot
