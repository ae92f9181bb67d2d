#include "tuner/boot/grub_evaluation.hpp"

#include <map>
#include <regex>

#include "model/errors.hpp"
#include "tuner/boot/token_edit.hpp"

namespace hugetune::boot {
namespace {

constexpr std::size_t kMaxExpandedBytes = 64 * 1024;
// Over all assignments: many variables each near the bound above would still exhaust memory.
constexpr std::size_t kMaxTotalExpandedBytes = 1024 * 1024;
constexpr std::size_t kMaxConstructChars = 60;

bool is_shell_name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

struct Value {
    std::vector<CmdlineChar> chars;
    std::optional<UnknownPart> unknown;
};

using Variables = std::map<std::string, Value, std::less<>>;

const Assignment& assignment_at(const std::vector<GrubSource>& sources, const AssignmentAt& at) {
    return sources[at.source].parsed.assignments[at.assignment];
}

std::string where_of(const std::vector<GrubSource>& sources, const AssignmentAt& at) {
    return sources[at.source].path + ":" + std::to_string(assignment_at(sources, at).line);
}

// What an opaque ${...} or $1 is, and the variable it assigns as a side effect, if any
// (${NAME=word} and ${NAME:=word} assign NAME in the shell that expands them).
struct Classified {
    std::string what;
    std::string assigns;
};

Classified classify_reference(std::string_view text) {
    if (!text.starts_with("${"))
        return {"a special or positional parameter", ""};
    std::string_view inner = text.substr(2, text.size() - 3);
    if (inner.starts_with("#") && inner.size() > 1)
        return {"a length expansion", ""};
    std::size_t name_end = 0;
    while (name_end < inner.size() && is_shell_name_char(inner[name_end]))
        ++name_end;
    if (name_end == 0 || (inner[0] >= '0' && inner[0] <= '9'))
        return {"a special or positional parameter", ""};
    std::string_view op = inner.substr(name_end);
    bool assigns = op.starts_with("=") || op.starts_with(":=");
    return {"a parameter expansion with an operator",
            assigns ? std::string(inner.substr(0, name_end)) : ""};
}

// Names an arithmetic expansion assigns in the current shell ($((X=1)), $((X+=1)), $((X++))).
std::vector<std::string> arithmetic_assignments(const std::string& text) {
    static const std::regex assigned(
        R"(([A-Za-z_][A-Za-z0-9_]*)\s*(\+\+|--|<<=|>>=|[-+*/%&|^]?=(?!=)))");
    static const std::regex incremented(R"((\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*))");
    std::vector<std::string> names;
    for (std::sregex_iterator it(text.begin(), text.end(), assigned), end; it != end; ++it)
        names.push_back((*it)[1]);
    for (std::sregex_iterator it(text.begin(), text.end(), incremented), end; it != end; ++it)
        names.push_back((*it)[2]);
    return names;
}

std::string substitution_kind(std::string_view text) {
    if (text.starts_with("$(("))
        return "arithmetic expansion";
    if (text.starts_with("`"))
        return "command substitution in backquotes";
    return "command substitution";
}

class Evaluator {
  public:
    explicit Evaluator(const std::vector<GrubSource>& sources) : sources_(sources) {
        vars_[std::string(kCmdlineVar)] = {};
        vars_[std::string(kCmdlineDefaultVar)] = {};
    }

    void run() {
        for (std::size_t s = 0; s < sources_.size(); ++s)
            for (std::size_t a = 0; a < sources_[s].parsed.assignments.size(); ++a)
                assign({s, a});
    }

    const Value& get(std::string_view name) const { return vars_.find(name)->second; }

  private:
    const std::vector<GrubSource>& sources_;
    Variables vars_;
    std::size_t total_chars_ = 0;

    std::string source_text(const AssignmentAt& at, const WordPiece& p) const {
        return sources_[at.source].text.substr(p.begin, p.end - p.begin);
    }

    static void note(Value& v, UnknownPart part) {
        if (!v.unknown)
            v.unknown = std::move(part);
    }

    UnknownPart part(const AssignmentAt& at, std::string construct, std::string what) const {
        UnknownPart u;
        u.at = at;
        u.construct = std::move(construct);
        u.what = std::move(what);
        return u;
    }

    void reference(const AssignmentAt& at, const WordPiece& p, Value& v) {
        const Assignment& a = assignment_at(sources_, at);
        std::string text = source_text(at, p);
        if (p.ref_name.empty()) {
            Classified c = classify_reference(text);
            note(v, part(at, text, c.what));
            if (!c.assigns.empty())
                vars_[c.assigns] = Value{{}, part(at, text, "an assignment inside " + c.what)};
            return;
        }
        auto it = vars_.find(p.ref_name);
        if (it == vars_.end()) {
            UnknownPart u = part(at, text, "a variable set nowhere before");
            u.unset_variable = true;
            note(v, std::move(u));
            return;
        }
        const Value& ref = it->second;
        v.chars.insert(v.chars.end(), ref.chars.begin(), ref.chars.end());
        if (ref.unknown && !v.unknown) {
            UnknownPart u = *ref.unknown;
            if (!u.through && is_cmdline_variable(a.name) &&
                !is_cmdline_variable(assignment_at(sources_, u.at).name)) {
                u.through = at;
                u.through_name = p.ref_name;
            }
            v.unknown = std::move(u);
        }
    }

    void substitution(const AssignmentAt& at, const WordPiece& p, Value& v) {
        std::string text = source_text(at, p);
        std::string kind = substitution_kind(text);
        note(v, part(at, text, kind));
        // Command substitution runs in a subshell; only arithmetic assigns in this one.
        if (kind == "arithmetic expansion")
            for (const auto& name : arithmetic_assignments(text))
                vars_[name] = Value{{}, part(at, text, "an assignment inside " + kind)};
    }

    void assign(const AssignmentAt& at) {
        const Assignment& a = assignment_at(sources_, at);
        Value v;
        for (const auto& p : a.value) {
            if (p.kind == WordPiece::Kind::literal)
                v.chars.push_back({p.ch, at});
            else if (p.kind == WordPiece::Kind::reference)
                reference(at, p, v);
            else
                substitution(at, p, v);
            // Self-references can double a value per line; x86-64 kernels take at most
            // 2 KiB of command line, so anything this long is not a real configuration.
            if (v.chars.size() > kMaxExpandedBytes)
                throw UsageError(where_of(sources_, at) + ": " + a.name +
                                 " expands to more than 64 KiB; hugetune will not guess at "
                                 "such a file: simplify it by hand");
        }
        total_chars_ += v.chars.size();
        if (total_chars_ > kMaxTotalExpandedBytes)
            throw UsageError(where_of(sources_, at) +
                             ": the assignments up to here expand to more than 1 MiB in all; "
                             "hugetune will not guess at such a file: simplify it by hand");
        vars_[a.name] = std::move(v);
    }
};

std::string shown(std::string construct) {
    for (char& c : construct)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    if (construct.size() > kMaxConstructChars)
        construct = construct.substr(0, kMaxConstructChars - 3) + "...";
    return "'" + construct + "'";
}

}  // namespace

std::string EvaluatedCmdline::text() const {
    std::string s;
    s.reserve(chars.size());
    for (const auto& c : chars)
        s.push_back(c.ch);
    return s;
}

EvaluatedCmdline evaluate_cmdline(const std::vector<GrubSource>& sources) {
    Evaluator eval(sources);
    eval.run();
    const Value& linux = eval.get(kCmdlineVar);
    const Value& defaults = eval.get(kCmdlineDefaultVar);
    EvaluatedCmdline out;
    out.chars = linux.chars;
    // 10_linux joins the two with one blank; it belongs to no file.
    out.chars.push_back({' ', std::nullopt});
    out.chars.insert(out.chars.end(), defaults.chars.begin(), defaults.chars.end());
    out.unknown = linux.unknown ? linux.unknown : defaults.unknown;
    return out;
}

std::optional<AssignmentAt> last_param_origin(const EvaluatedCmdline& cmdline,
                                              std::string_view name) {
    std::string text = cmdline.text();
    std::string token = std::string(name) + "=";
    for (std::size_t at = text.rfind(token); at != std::string::npos;
         at = at == 0 ? std::string::npos : text.rfind(token, at - 1)) {
        if (at == 0 || text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '\n')
            return cmdline.chars[at].written_by;
    }
    return std::nullopt;
}

std::string unknown_part_message(const std::vector<GrubSource>& sources, const UnknownPart& part) {
    std::string head;
    std::string construct = part.unset_variable
                                ? part.construct +
                                      ", which no earlier line of /etc/default/grub or its "
                                      "drop-ins sets"
                                : part.what + " " + shown(part.construct);
    if (part.through)
        head = where_of(sources, *part.through) + ": " +
               assignment_at(sources, *part.through).name + " takes $" + part.through_name +
               ", which " + where_of(sources, part.at) + " sets with " + construct;
    else
        head = where_of(sources, part.at) + ": " + assignment_at(sources, part.at).name + " uses " +
               construct;
    std::string why = part.unset_variable
                          ? " (grub-mkconfig would take it from its own variables or its "
                            "environment)"
                          : ", whose value hugetune cannot know without running the shell as "
                            "grub-mkconfig does";
    std::string fix = part.unset_variable
                          ? "set it to literal text on an earlier line, or write its value in "
                            "its place"
                          : "replace it with literal text";
    return head + why + "; it could give the kernel another " + std::string(kAllocThreadsParam) +
           "= after the one hugetune writes (the last one wins): " + fix +
           ", then run hugetune again";
}

}  // namespace hugetune::boot
