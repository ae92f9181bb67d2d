#include "tuner/boot/grub_config.hpp"

#include "model/errors.hpp"
#include "tuner/boot/grub_evaluation.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot {
namespace {

std::string where(const GrubSource& s, const Assignment& a) {
    return s.path + ":" + std::to_string(a.line);
}

// Inserts " name=value" at the end of an assignment's value, inside its closing quote when
// it has one, so that the quoting style of the line is kept.
Replacement insertion(const std::string& text, const Assignment& a, const std::string& param) {
    bool needs_blank = !a.value.empty() && !is_blank_piece(a.value.back());
    std::string sep = needs_blank ? " " : "";
    if (a.value_begin == a.value_end)
        return {a.value_begin, a.value_end, "\"" + param + "\""};
    if (a.closing_quote != 0)
        return {a.value_end - 1, a.value_end - 1, sep + param};
    // Unquoted value: quote it whole when that cannot change its meaning, else add a quoted
    // part ("a" "b" joined: a" b" is one shell word).
    std::string_view old(text.data() + a.value_begin, a.value_end - a.value_begin);
    if (is_plain_shell_word(old))
        return {a.value_begin, a.value_end, "\"" + std::string(old) + sep + param + "\""};
    return {a.value_end, a.value_end, "\"" + sep + param + "\""};
}

}  // namespace

GrubSource parse_grub_source(std::string path, std::string text) {
    GrubSource s;
    s.path = std::move(path);
    s.text = std::move(text);
    try {
        s.parsed = parse_shell_fragment(s.text);
    } catch (const ShellParseError& e) {
        throw UsageError(s.path + ":" + std::to_string(e.line()) + ": " +
                         std::string(e.what()).substr(std::string(e.what()).find(": ") + 2) +
                         "; hugetune will not guess: fix the line by hand, then run it again");
    }
    return s;
}

std::optional<AssignmentRef> effective_assignment(const std::vector<GrubSource>& sources,
                                                  std::string_view name) {
    std::optional<AssignmentRef> found;
    for (std::size_t s = 0; s < sources.size(); ++s)
        for (std::size_t a = 0; a < sources[s].parsed.assignments.size(); ++a)
            if (sources[s].parsed.assignments[a].name == name)
                found = AssignmentRef{s, a};
    return found;
}

std::string evaluated_cmdline(const std::vector<GrubSource>& sources) {
    return evaluate_cmdline(sources).text();
}

std::optional<std::string> effective_alloc_threads(const std::vector<GrubSource>& sources) {
    return kernel_alloc_threads(std::string_view(evaluated_cmdline(sources))).value;
}

namespace {

using SourceChanges = std::vector<std::vector<Replacement>>;  // per source

void check_editable(const std::vector<GrubSource>& sources,
                    const std::optional<std::string>& value) {
    if (sources.empty())
        throw RuntimeError("no grub configuration to edit");
    if (value && !is_safe_param_value(*value))
        throw UsageError("refusing to write hugepage_alloc_threads=" + *value +
                         ": only letters and digits are written");
    // The edit below sees only literal tokens; anything that could still put the parameter on
    // the command line without being one is refused before any of it is planned.
    auto evaluated = evaluate_cmdline(sources);
    if (evaluated.unknown)
        throw UsageError(unknown_part_message(sources, *evaluated.unknown));
}

// Removes the parameter from every cmdline assignment and keeps or puts it in `target`.
SourceChanges token_changes(const std::vector<GrubSource>& sources,
                            const std::optional<AssignmentRef>& target,
                            const std::optional<std::string>& value, const std::string& param) {
    SourceChanges changes(sources.size());
    for (std::size_t s = 0; s < sources.size(); ++s) {
        const auto& assignments = sources[s].parsed.assignments;
        for (std::size_t a = 0; a < assignments.size(); ++a) {
            if (!is_cmdline_variable(assignments[a].name))
                continue;
            bool is_target = target && target->source == s && target->assignment == a;
            std::optional<std::string> keep = is_target ? value : std::nullopt;
            bool kept =
                edit_param_tokens(assignments[a].value, kAllocThreadsParam, keep, changes[s]);
            if (is_target && value && !kept)
                changes[s].push_back(insertion(sources[s].text, assignments[a], param));
        }
    }
    return changes;
}

// Says where the parameter goes; with no GRUB_CMDLINE_LINUX anywhere, adds one to the main
// file.
void place_param(const std::vector<GrubSource>& sources, const std::optional<AssignmentRef>& target,
                 const std::optional<std::string>& value, const std::string& param,
                 SourceChanges& changes, GrubEdit& edit) {
    if (target) {
        const auto& src = sources[target->source];
        edit.target_path = src.path;
        edit.notes.push_back(std::string(kCmdlineVar) + " takes effect from " +
                             where(src, src.parsed.assignments[target->assignment]));
        if (target->source != 0 && value)
            edit.notes.push_back("editing the drop-in " + src.path +
                                 " because it sets GRUB_CMDLINE_LINUX after " + sources[0].path +
                                 "; a package update may replace that file");
    } else if (value) {
        const auto& main = sources[0];
        std::string nl = main.parsed.crlf ? "\r\n" : "\n";
        std::string add;
        if (!main.text.empty() && main.text.back() != '\n')
            add += nl;
        add += std::string(kCmdlineVar) + "=\"" + param + "\"" + nl;
        changes[0].push_back({main.text.size(), main.text.size(), add});
        edit.target_path = main.path;
        edit.notes.push_back("no file sets GRUB_CMDLINE_LINUX; adding it to " + main.path);
    }
    if (auto d = effective_assignment(sources, kCmdlineDefaultVar); d && d->source != 0) {
        const auto& src = sources[d->source];
        edit.notes.push_back(std::string(kCmdlineDefaultVar) + " is set last by " +
                             where(src, src.parsed.assignments[d->assignment]) + " (it overrides " +
                             sources[0].path + ")");
    }
}

// The new texts, each read back; throws unless a normal entry gets exactly `value`.
void apply_changes(const std::vector<GrubSource>& sources, const SourceChanges& changes,
                   const std::optional<AssignmentRef>& target,
                   const std::optional<std::string>& value, GrubEdit& edit) {
    std::vector<GrubSource> after;
    for (std::size_t s = 0; s < sources.size(); ++s) {
        edit.new_texts.push_back(apply_replacements(sources[s].text, changes[s]));
        try {
            after.push_back(parse_grub_source(sources[s].path, edit.new_texts[s]));
        } catch (const UsageError& e) {
            throw RuntimeError(std::string("internal error: the edited file cannot be read "
                                           "back, so nothing was written (") +
                               e.what() + ")");
        }
        if (s > 0 && !changes[s].empty() && !(target && target->source == s))
            edit.notes.push_back("removing hugepage_alloc_threads= from the drop-in " +
                                 sources[s].path + " (it would override the new value)");
    }
    // The kernel must end up with exactly the requested value. A parameter that reaches the
    // command line through another variable ($X) is out of reach of the edit above.
    auto evaluated = evaluate_cmdline(after);
    const auto result = kernel_alloc_threads(std::string_view(evaluated.text()));
    if (result.value == value)
        return;
    std::string got = result.shown() ? std::string(kAllocThreadsParam) + "=" + *result.shown()
                                     : "no " + std::string(kAllocThreadsParam) + "=";
    // Everything after a bare "--" goes to init (docs/kernel-facts.md "Kernel command line
    // syntax"): the value hugetune adds at the end of GRUB_CMDLINE_LINUX would land there.
    if (value && parse_kernel_cmdline(evaluated.text()).init_args)
        throw UsageError(sources[0].path + ": the command line GRUB builds holds a bare '--', " +
                         "and the kernel hands everything after it to init, where " +
                         std::string(kAllocThreadsParam) + "=" + *value +
                         " would land; move the '--' and what follows it to the end of " +
                         std::string(kCmdlineDefaultVar) + ", or add " +
                         std::string(kAllocThreadsParam) + "=" + *value +
                         " before it by hand, then run hugetune again");
    if (auto from = last_param_origin(evaluated, kAllocThreadsParam)) {
        const auto& src = after[from->source];
        const auto& a = src.parsed.assignments[from->assignment];
        throw UsageError(src.path + ":" + std::to_string(a.line) + ": " + a.name + " holds " + got +
                         ", which reaches the kernel command line through a variable, "
                         "after the value hugetune writes (the last one wins); remove it from " +
                         a.name + " by hand, then run hugetune again");
    }
    throw UsageError(sources[0].path + ": after the edit a normal boot entry would still get " +
                     got + " (an unbalanced '\"' in the command line); edit the files by hand");
}

}  // namespace

GrubEdit plan_grub_edit(const std::vector<GrubSource>& sources,
                        const std::optional<std::string>& value) {
    check_editable(sources, value);
    std::string param = value ? std::string(kAllocThreadsParam) + "=" + *value : "";
    auto target = effective_assignment(sources, kCmdlineVar);
    SourceChanges changes = token_changes(sources, target, value, param);
    GrubEdit edit;
    place_param(sources, target, value, param, changes, edit);
    apply_changes(sources, changes, target, value, edit);
    return edit;
}

std::string edit_grub_text(const std::string& text, const std::optional<std::string>& value) {
    std::vector<GrubSource> sources{parse_grub_source("/etc/default/grub", text)};
    return plan_grub_edit(sources, value).new_texts[0];
}

}  // namespace hugetune::boot
