#include "cli/help_formats.hpp"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "cli/cli.hpp"

namespace hugetune::cli {

namespace {

HelpForm current_form = HelpForm::text;

// Files an option reads or writes, by extension, for the completion; any other FILE option
// completes every file. tests/cli/completion.sh checks that each name is a real option.
const std::map<std::string, std::string, std::less<>> kFileExtensions = {
    {"report", "json"}, {"input", "json csv"}, {"boot-sweep", "json"}, {"plot", "svg png"},
    {"out", "json"},    {"state", "json"},     {"prometheus", "prom"}, {"boot-record", "json"},
};

void print_roff_options(std::ostream& out, const po::options_description& desc) {
    for (const auto& option : desc.options()) {
        out << ".TP\n.B ";
        const std::string shorter =
            option->canonical_display_name(po::command_line_style::allow_dash_for_short);
        if (shorter.size() == 2 && shorter[0] == '-')
            out << roff_escape(shorter) << ", ";
        out << roff_escape("--" + option->long_name());
        if (const std::string value = option->format_parameter(); !value.empty())
            out << " \\fI" << roff_escape(value) << "\\fR";
        out << "\n" << roff_escape(option->description()) << "\n";
    }
}

// "file json csv", "dir", "choice a b", "hugepagesize" (the sizes the kernel lists), "value"
// (anything; nothing to offer) or "flag".
std::string completion_kind(const po::option_description& option) {
    const std::string value = option.format_parameter();
    if (value.empty())
        return "flag";
    if (value == "FILE") {
        const auto ext = kFileExtensions.find(option.long_name());
        return ext == kFileExtensions.end() ? "file" : "file " + ext->second;
    }
    if (value == "DIR")
        return "dir";
    if (value == "FILE|DIR")  // fleet export --out: a file, or a directory for some formats
        return "file";
    if (value == "SIZE")  // a huge page size: those the running kernel lists
        return "hugepagesize";
    if (value.find('|') != std::string::npos) {
        std::string words = value;
        std::replace(words.begin(), words.end(), '|', ' ');
        return "choice " + words;
    }
    return "value";
}

void print_completion_table(std::ostream& out, std::string_view command,
                            const po::options_description& desc) {
    for (const auto& option : desc.options())
        out << command << '\t' << "--" << option->long_name() << '\t' << completion_kind(*option)
            << '\n';
}

const Command& find_command(std::string_view name) {
    for (const auto& c : commands())
        if (c.name == name)
            return c;
    throw std::logic_error("no command " + std::string(name));
}

// What a command prints on stdout while it runs `args`, for the generators.
std::string captured_output(const Command& command, const Args& args) {
    std::ostringstream text;
    std::streambuf* saved = std::cout.rdbuf(text.rdbuf());
    try {
        command.run(args);
    } catch (...) {
        std::cout.rdbuf(saved);
        throw;
    }
    std::cout.rdbuf(saved);
    return text.str();
}

}  // namespace

void set_help_form(HelpForm form) {
    current_form = form;
}

HelpForm help_form() {
    return current_form;
}

std::string roff_escape(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool line_start = i == 0 || text[i - 1] == '\n';
        if (line_start && (c == '.' || c == '\''))
            out += "\\&";
        const char next = i + 1 < text.size() ? text[i + 1] : '\0';
        const char prev = i > 0 ? text[i - 1] : '\0';
        if (c == '\\')
            out += "\\e";
        else if (c == '-' &&
                 (next == '-' || prev == '-' || std::isalpha(static_cast<unsigned char>(next))))
            out += "\\-";
        else
            out += c;
    }
    return out;
}

void print_command_help(std::ostream& out, std::string_view command, std::string_view usage,
                        const po::options_description& desc) {
    switch (current_form) {
        case HelpForm::text:
            out << "usage: " << usage << "\n\n" << desc << "\n" << exit_codes_text();
            break;
        case HelpForm::roff_synopsis:
            out << ".nf\n" << roff_escape(usage) << "\n.fi\n";
            break;
        case HelpForm::roff_options:
            print_roff_options(out, desc);
            break;
        case HelpForm::completion:
            print_completion_table(out, command, desc);
            break;
    }
}

void print_subcommands_help(std::ostream& out, std::string_view command,
                            const std::vector<Subcommand>& subcommands) {
    if (current_form == HelpForm::text) {
        std::string names;
        for (const auto& s : subcommands)
            names += (names.empty() ? "" : "|") + std::string(s.name);
        out << "usage: hugetune " << command << " " << names << " [options]\n\n"
            << "Subcommands (each with its own --help):\n";
        std::size_t width = 0;
        for (const auto& s : subcommands)
            width = std::max(width, s.name.size() + 2);
        for (const auto& s : subcommands)
            out << "  " << s.name << std::string(width - s.name.size(), ' ') << s.summary << "\n";
        out << "\n" << exit_codes_text();
        return;
    }
    const Command& self = find_command(command);
    for (const auto& s : subcommands) {
        if (current_form == HelpForm::completion)
            out << command << "\t" << s.name << "\tsubcommand\n";
        if (current_form == HelpForm::roff_options)
            out << ".SS \"" << roff_escape(s.name) << "\"\n" << roff_escape(s.summary) << "\n";
        out << captured_output(self, {std::string(s.name), "--help"});
    }
}

namespace {

void print_section(std::ostream& out, std::string_view name) {
    out << ".\\\" @@ " << name << "\n";
}

std::string roff_exit_codes() {
    std::istringstream lines(exit_codes_text());
    std::string line, out;
    std::getline(lines, line);  // "Exit codes:"
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string code, meaning;
        words >> code;
        std::getline(words >> std::ws, meaning);
        out += ".TP\n.B " + code + "\n" + roff_escape(meaning) + "\n";
    }
    return out;
}

void print_main_sections(std::ostream& out) {
    print_section(out, "COMMANDS");
    for (const auto& c : commands())
        out << ".TP\n.BR hugetune\\-" << roff_escape(c.name) << " (8)\n"
            << roff_escape(c.summary) << "\n";
}

}  // namespace

int print_man_sections(const std::vector<std::string>& args) {
    if (args.empty()) {
        print_main_sections(std::cout);
    } else {
        const Command& command = find_command(args.front());
        Args help(args.begin() + 1, args.end());
        help.push_back("--help");
        print_section(std::cout, "SUMMARY");
        std::cout << roff_escape(command.summary) << "\n";
        set_help_form(HelpForm::roff_synopsis);
        print_section(std::cout, "SYNOPSIS");
        std::cout << captured_output(command, help);
        set_help_form(HelpForm::roff_options);
        print_section(std::cout, "OPTIONS");
        std::cout << captured_output(command, help);
        set_help_form(HelpForm::text);
    }
    print_section(std::cout, "EXIT_STATUS");
    std::cout << roff_exit_codes();
    return 0;
}

namespace {

// Bash's case patterns and words: every name here is a command or option name of ours,
// lower case letters, digits and hyphens, so it needs no quoting beyond the double quotes.
constexpr std::string_view kCompletionMain = R"BASH(
_hugetune() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev="" key subs kind
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$(_hugetune_commands) --help --version" -- "$cur"))
        return 0
    fi
    key=${COMP_WORDS[1]}
    subs=$(_hugetune_subcommands "$key")
    if [[ -n $subs ]]; then
        if ((COMP_CWORD == 2)); then
            COMPREPLY=($(compgen -W "$subs --help" -- "$cur"))
            return 0
        fi
        key="$key ${COMP_WORDS[2]}"
    fi
    read -r -a kind <<<"$(_hugetune_value "$key" "$prev")"
    case ${kind[0]-} in
    file)
        compopt -o filenames 2>/dev/null
        if ((${#kind[@]} == 1)); then
            COMPREPLY=($(compgen -f -- "$cur"))
        else
            local ext
            for ext in "${kind[@]:1}"; do
                COMPREPLY+=($(compgen -f -X "!*.$ext" -- "$cur"))
            done
            COMPREPLY+=($(compgen -d -- "$cur"))
        fi
        return 0 ;;
    dir)
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -d -- "$cur"))
        return 0 ;;
    choice)
        COMPREPLY=($(compgen -W "${kind[*]:1}" -- "$cur"))
        return 0 ;;
    hugepagesize)
        local dir kb sizes=""
        for dir in /sys/kernel/mm/hugepages/hugepages-*kB; do
            [[ -d $dir ]] || continue
            kb=${dir##*/hugepages-}
            kb=${kb%kB}
            if ((kb % 1048576 == 0)); then
                sizes+=" $((kb / 1048576))G"
            elif ((kb % 1024 == 0)); then
                sizes+=" $((kb / 1024))M"
            else
                sizes+=" ${kb}K"
            fi
        done
        COMPREPLY=($(compgen -W "$sizes" -- "$cur"))
        return 0 ;;
    value)
        return 0 ;;
    esac
    COMPREPLY=($(compgen -W "$(_hugetune_options "$key")" -- "$cur"))
}
complete -F _hugetune hugetune
)BASH";

struct CompletionTable {
    std::vector<std::string> order;                  // commands and subcommands
    std::map<std::string, std::string> options;      // key -> "--a --b"
    std::map<std::string, std::string> values;       // "key --opt" -> kind
    std::map<std::string, std::string> subcommands;  // command -> "plan start"
};

void add_completion_line(CompletionTable& t, const std::string& line) {
    std::istringstream fields(line);
    std::string key, name, kind;
    std::getline(fields, key, '\t');
    std::getline(fields, name, '\t');
    std::getline(fields, kind);
    if (kind == "subcommand") {
        t.subcommands[key] += (t.subcommands[key].empty() ? "" : " ") + name;
        return;
    }
    if (!t.options.contains(key))
        t.order.push_back(key);
    t.options[key] += (t.options[key].empty() ? "" : " ") + name;
    if (kind != "flag")
        t.values[key + " " + name] = kind;
}

void print_case(std::ostream& out, const std::string& function, std::string_view subject,
                const std::map<std::string, std::string>& rows) {
    out << function << "() {\n    case \"" << subject << "\" in\n";
    for (const auto& [key, value] : rows)
        out << "    \"" << key << "\") echo \"" << value << "\" ;;\n";
    out << "    esac\n}\n";
}

}  // namespace

int print_bash_completion() {
    CompletionTable table;
    set_help_form(HelpForm::completion);
    std::string names;
    for (const auto& c : commands()) {
        names += (names.empty() ? "" : " ") + std::string(c.name);
        std::istringstream lines(captured_output(c, {"--help"}));
        for (std::string line; std::getline(lines, line);)
            add_completion_line(table, line);
    }
    set_help_form(HelpForm::text);
    std::cout << "# bash completion for hugetune; generated from its option definitions by\n"
                 "# `hugetune --bash-completion` when hugetune is built: do not edit.\n"
              << "_hugetune_commands() {\n    echo \"" << names << "\"\n}\n";
    print_case(std::cout, "_hugetune_subcommands", "$1", table.subcommands);
    print_case(std::cout, "_hugetune_options", "$1", table.options);
    print_case(std::cout, "_hugetune_value", "$1 $2", table.values);
    std::cout << kCompletionMain.substr(1);
    return 0;
}

}  // namespace hugetune::cli
