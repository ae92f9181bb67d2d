// A reader for shell fragments made only of variable assignments and comments, such as
// /etc/default/grub and /etc/default/grub.d/*.cfg (sourced by grub-mkconfig with `.`). It
// records where every character of every assigned value comes from, so that an editor can
// change one token and keep every other byte of the file. Anything it cannot read with
// certainty (a command, an operator, an unterminated quote, binary data) is refused with its
// line number instead of being guessed at.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/errors.hpp"

namespace hugetune::boot {

enum class Quoting { none, single, double_quote };

// One logical character of a value, or one opaque expansion.
struct WordPiece {
    enum class Kind {
        literal,       // the character `ch`
        reference,     // $NAME, ${NAME} (ref_name set) or another ${...} / $1 form (empty)
        substitution,  // `...` or $(...): its value cannot be known without running it
    };
    Kind kind = Kind::literal;
    char ch = 0;
    Quoting quoting = Quoting::none;
    std::size_t begin = 0, end = 0;  // source bytes [begin, end)
    std::string ref_name;
};

struct Assignment {
    std::string name;
    std::size_t line = 0;                        // 1-based line of the name
    std::size_t value_begin = 0, value_end = 0;  // the word after '=' in the source
    std::vector<WordPiece> value;
    char closing_quote = 0;  // '"' or '\'' when the word ends by closing a quote, else 0
    bool has_substitution() const;
};

struct ShellFragment {
    std::vector<Assignment> assignments;  // in source order
    bool crlf = false;                    // lines end with "\r\n"
};

// A file of assignments hugetune cannot read with certainty: bad input (exit 2) wherever it is
// not read into a message naming the file first.
class ShellParseError : public Error {
  public:
    ShellParseError(std::size_t line, const std::string& message)
        : Error(ExitCode::usage, "line " + std::to_string(line) + ": " + message), line_(line) {}
    std::size_t line() const { return line_; }

  private:
    std::size_t line_;
};

// Throws ShellParseError for anything but blank lines, comments, `NAME=word` (several per
// statement allowed), `export NAME[=word]...` and `;` between statements.
ShellFragment parse_shell_fragment(std::string_view text);

bool is_blank_piece(const WordPiece& p);

// A non-empty word of characters that mean nothing special to sh, so it needs no quoting.
bool is_plain_shell_word(std::string_view word);

}  // namespace hugetune::boot
