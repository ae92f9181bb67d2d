// What `--help` prints, in the forms made from the same option definitions: the text users
// read, the man pages' sections (roff) and the bash completion's table. The man pages and the
// completion script are generated at build time by the hidden `hugetune --help-roff` and
// `hugetune --bash-completion`, which ask every command for its --help in these forms, so a
// new command or option is in them without being written twice.
#pragma once

#include <boost/program_options.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune::cli {

enum class HelpForm { text, roff_synopsis, roff_options, completion };

void set_help_form(HelpForm form);
HelpForm help_form();

// `command` is "run", or "boot-sweep plan" for a subcommand. Prints the help of the current
// form: usage and options as text, the usage or the options as roff, or the completion table.
void print_command_help(std::ostream& out, std::string_view command, std::string_view usage,
                        const boost::program_options::options_description& desc);

struct Subcommand {
    std::string_view name;
    std::string_view summary;
};

// The help of a command made of subcommands (`hugetune boot-sweep --help`). In text: its usage
// and the list; in the other forms, each subcommand's own help, asked of the command.
void print_subcommands_help(std::ostream& out, std::string_view command,
                            const std::vector<Subcommand>& subcommands);

// Text with roff's special characters escaped; "-" before a letter or "-" becomes "\-", the
// minus sign a man page must use for options.
std::string roff_escape(std::string_view text);

// The hidden `hugetune --help-roff [COMMAND]`: the sections a man page template takes (see
// cmake/ManPage.cmake), each after a line `.\" @@ NAME`.
int print_man_sections(const std::vector<std::string>& args);

// The hidden `hugetune --bash-completion`: the whole completion script.
int print_bash_completion();

}  // namespace hugetune::cli
