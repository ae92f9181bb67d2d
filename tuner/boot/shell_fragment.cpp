#include "tuner/boot/shell_fragment.hpp"

#include <algorithm>
#include <cstdio>
#include <regex>

namespace hugetune::boot {
namespace {

bool is_name_start(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_name_char(char c) {
    return is_name_start(c) || (c >= '0' && c <= '9');
}

// Follows the POSIX shell grammar (XCU 2.2 quoting, 2.6 expansions) for the subset that
// configuration fragments use.
class Parser {
  public:
    explicit Parser(std::string_view text) : t_(text) {
        for (std::size_t i = 0; i < t_.size(); ++i)
            if (t_[i] == '\n')
                line_starts_.push_back(i + 1);
    }

    ShellFragment run() {
        check_bytes();
        ShellFragment out;
        out.crlf = t_.find("\r\n") != std::string_view::npos;
        enum class Stmt { empty, assignments, exported } stmt = Stmt::empty;
        while (i_ < t_.size()) {
            char c = t_[i_];
            if (c == ' ' || c == '\t') {
                ++i_;
            } else if (std::size_t nl = newline_at(i_)) {
                i_ += nl;
                stmt = Stmt::empty;
            } else if (c == ';') {
                if (stmt == Stmt::empty)
                    fail(i_, "';' without a statement before it");
                ++i_;
                stmt = Stmt::empty;
            } else if (c == '\\' && newline_at(i_ + 1)) {
                i_ += 1 + newline_at(i_ + 1);
            } else if (c == '#') {
                while (i_ < t_.size() && !newline_at(i_))
                    ++i_;
            } else if (is_operator(c)) {
                fail(i_, std::string("shell operator '") + c +
                             "': only assignments and comments can be edited safely");
            } else if (is_name_start(c)) {
                std::size_t start = i_;
                while (i_ < t_.size() && is_name_char(t_[i_]))
                    ++i_;
                std::string name(t_.substr(start, i_ - start));
                if (i_ < t_.size() && t_[i_] == '=') {
                    if (stmt == Stmt::empty)
                        stmt = Stmt::assignments;
                    Assignment a;
                    a.name = name;
                    a.line = line_of(start);
                    a.value_begin = ++i_;
                    lex_word(a);
                    a.value_end = i_;
                    out.assignments.push_back(std::move(a));
                } else if (at_word_end(i_) && stmt == Stmt::empty && name == "export") {
                    stmt = Stmt::exported;
                } else if (at_word_end(i_) && stmt == Stmt::exported) {
                    // `export NAME`: marks a variable, assigns nothing.
                } else {
                    fail(start, "'" + word_preview(start) +
                                    "' is a command, not an assignment; only assignments and "
                                    "comments can be edited safely");
                }
            } else {
                fail(i_, "'" + word_preview(i_) +
                             "' is not an assignment; only assignments and comments can be "
                             "edited safely");
            }
        }
        return out;
    }

  private:
    std::string_view t_;
    std::size_t i_ = 0;
    std::vector<std::size_t> line_starts_{0};

    std::size_t line_of(std::size_t pos) const {
        return static_cast<std::size_t>(
            std::upper_bound(line_starts_.begin(), line_starts_.end(), pos) - line_starts_.begin());
    }
    [[noreturn]] void fail(std::size_t pos, const std::string& message) const {
        throw ShellParseError(line_of(pos), message);
    }
    std::string word_preview(std::size_t pos) const {
        std::size_t e = pos;
        while (e < t_.size() && e - pos < 24 && t_[e] != ' ' && t_[e] != '\t' && t_[e] != '\n' &&
               t_[e] != '\r')
            ++e;
        return std::string(t_.substr(pos, e - pos));
    }

    // Length of the line end at pos: 1 for "\n", 2 for "\r\n", 0 otherwise.
    std::size_t newline_at(std::size_t pos) const {
        if (pos >= t_.size())
            return 0;
        if (t_[pos] == '\n')
            return 1;
        if (t_[pos] == '\r' && pos + 1 < t_.size() && t_[pos + 1] == '\n')
            return 2;
        return 0;
    }
    static bool is_operator(char c) {
        return c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')';
    }
    bool at_word_end(std::size_t pos) const {
        return pos >= t_.size() || t_[pos] == ' ' || t_[pos] == '\t' || t_[pos] == ';' ||
               newline_at(pos) != 0;
    }

    // NUL and other control bytes never occur in a text configuration file; a lone carriage
    // return would become part of a value when sh reads the file.
    void check_bytes() const {
        for (std::size_t p = 0; p < t_.size(); ++p) {
            auto b = static_cast<unsigned char>(t_[p]);
            if (b == '\r') {
                if (!newline_at(p))
                    fail(p, "carriage return that does not end a line");
                continue;
            }
            if ((b < 0x20 && b != '\t' && b != '\n') || b == 0x7f) {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02x", b);
                fail(p, std::string("binary data (byte ") + hex +
                            "); this is not a text configuration file");
            }
        }
    }

    void literal(Assignment& a, Quoting q, std::size_t begin, std::size_t end, char ch) {
        WordPiece p;
        p.kind = WordPiece::Kind::literal;
        p.ch = ch;
        p.quoting = q;
        p.begin = begin;
        p.end = end;
        a.value.push_back(p);
    }

    void lex_word(Assignment& a) {
        while (i_ < t_.size()) {
            char c = t_[i_];
            if (c == ' ' || c == '\t' || c == ';' || newline_at(i_))
                return;
            a.closing_quote = 0;
            if (is_operator(c))
                fail(i_, std::string("unquoted '") + c + "' in the value of " + a.name +
                             "; quote the value");
            if (c == '\\') {
                if (std::size_t nl = newline_at(i_ + 1)) {
                    i_ += 1 + nl;  // line continuation: removed by the shell
                    continue;
                }
                if (i_ + 1 >= t_.size())
                    fail(i_, "backslash at the end of the file");
                literal(a, Quoting::none, i_, i_ + 2, t_[i_ + 1]);
                i_ += 2;
            } else if (c == '\'') {
                std::size_t open = i_++;
                while (i_ < t_.size() && t_[i_] != '\'') {
                    literal(a, Quoting::single, i_, i_ + 1, t_[i_]);
                    ++i_;
                }
                if (i_ >= t_.size())
                    fail(open, "unterminated single quote in the value of " + a.name);
                ++i_;
                a.closing_quote = '\'';
            } else if (c == '"') {
                lex_double_quoted(a);
                a.closing_quote = '"';
            } else if (c == '$') {
                dollar(a, Quoting::none);
            } else if (c == '`') {
                backquote(a, Quoting::none);
            } else {
                literal(a, Quoting::none, i_, i_ + 1, c);
                ++i_;
            }
        }
    }

    void lex_double_quoted(Assignment& a) {
        std::size_t open = i_++;
        while (i_ < t_.size() && t_[i_] != '"') {
            char c = t_[i_];
            if (c == '\\' && i_ + 1 < t_.size()) {
                char n = t_[i_ + 1];
                if (std::size_t nl = newline_at(i_ + 1)) {
                    i_ += 1 + nl;
                } else if (n == '$' || n == '`' || n == '"' || n == '\\') {
                    literal(a, Quoting::double_quote, i_, i_ + 2, n);
                    i_ += 2;
                } else {
                    literal(a, Quoting::double_quote, i_, i_ + 1, '\\');
                    ++i_;
                }
            } else if (c == '$') {
                dollar(a, Quoting::double_quote);
            } else if (c == '`') {
                backquote(a, Quoting::double_quote);
            } else {
                literal(a, Quoting::double_quote, i_, i_ + 1, c);
                ++i_;
            }
        }
        if (i_ >= t_.size())
            fail(open, "unterminated double quote in the value of " + a.name);
        ++i_;
    }

    void opaque(Assignment& a, WordPiece::Kind kind, Quoting q, std::size_t begin,
                std::string ref_name = {}) {
        WordPiece p;
        p.kind = kind;
        p.quoting = q;
        p.begin = begin;
        p.end = i_;
        p.ref_name = std::move(ref_name);
        a.value.push_back(std::move(p));
    }

    void dollar(Assignment& a, Quoting q) {
        std::size_t start = i_;
        char n = i_ + 1 < t_.size() ? t_[i_ + 1] : '\0';
        if (n == '{') {
            std::size_t close = t_.find('}', i_ + 2);
            if (close == std::string_view::npos)
                fail(start, "unterminated ${ in " + a.name);
            std::string_view inner = t_.substr(i_ + 2, close - i_ - 2);
            if (inner.find_first_of("${`'\"\\\n") != std::string_view::npos)
                fail(start, "parameter expansion too complex to read with certainty in " + a.name +
                                "; simplify it");
            bool simple = !inner.empty() && is_name_start(inner[0]) &&
                          std::all_of(inner.begin(), inner.end(), is_name_char);
            i_ = close + 1;
            opaque(a, WordPiece::Kind::reference, q, start, simple ? std::string(inner) : "");
        } else if (n == '(') {
            command_substitution(a, q);
        } else if (is_name_start(n)) {
            i_ += 1;
            std::size_t name_start = i_;
            while (i_ < t_.size() && is_name_char(t_[i_]))
                ++i_;
            opaque(a, WordPiece::Kind::reference, q, start,
                   std::string(t_.substr(name_start, i_ - name_start)));
        } else if ((n >= '0' && n <= '9') || n == '@' || n == '*' || n == '#' || n == '?' ||
                   n == '-' || n == '$' || n == '!') {
            i_ += 2;
            opaque(a, WordPiece::Kind::reference, q, start);
        } else {
            literal(a, q, i_, i_ + 1, '$');  // a '$' that starts no expansion is itself
            ++i_;
        }
    }

    void backquote(Assignment& a, Quoting q) {
        std::size_t start = i_++;
        while (i_ < t_.size() && t_[i_] != '`') {
            if (t_[i_] == '\\')
                ++i_;
            ++i_;
        }
        if (i_ >= t_.size())
            fail(start, "unterminated ` command substitution in " + a.name);
        ++i_;
        opaque(a, WordPiece::Kind::substitution, q, start);
    }

    // $( ... ) and $(( ... )): nesting counted over parentheses outside quotes. A `case`
    // inside could hold an unbalanced ')' pattern, so it is refused rather than guessed.
    void command_substitution(Assignment& a, Quoting q) {
        std::size_t start = i_;
        i_ += 2;
        int depth = 1;
        while (i_ < t_.size() && depth > 0) {
            char c = t_[i_];
            if (c == '\\') {
                i_ += 2;
                continue;
            }
            if (c == '\'' || c == '"' || c == '`') {
                std::size_t close = i_ + 1;
                while (close < t_.size() && t_[close] != c) {
                    if (c != '\'' && t_[close] == '\\')
                        ++close;
                    ++close;
                }
                if (close >= t_.size())
                    break;
                i_ = close + 1;
                continue;
            }
            if (c == '(')
                ++depth;
            if (c == ')')
                --depth;
            ++i_;
        }
        if (depth > 0)
            fail(start, "unterminated $( command substitution in " + a.name);
        static const std::regex case_word(R"((^|[^A-Za-z0-9_])case([^A-Za-z0-9_]|$))");
        std::string body(t_.substr(start, i_ - start));
        if (std::regex_search(body, case_word))
            fail(start, "'case' inside a command substitution in " + a.name +
                            " cannot be read with certainty");
        opaque(a, WordPiece::Kind::substitution, q, start);
    }
};

}  // namespace

bool Assignment::has_substitution() const {
    return std::any_of(value.begin(), value.end(),
                       [](const WordPiece& p) { return p.kind == WordPiece::Kind::substitution; });
}

bool is_blank_piece(const WordPiece& p) {
    return p.kind == WordPiece::Kind::literal &&
           (p.ch == ' ' || p.ch == '\t' || p.ch == '\n' || p.ch == '\r');
}

bool is_plain_shell_word(std::string_view word) {
    return !word.empty() && word.find_first_not_of(
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                "0123456789_=.,:/+@%-") == std::string_view::npos;
}

ShellFragment parse_shell_fragment(std::string_view text) {
    return Parser(text).run();
}

}  // namespace hugetune::boot
