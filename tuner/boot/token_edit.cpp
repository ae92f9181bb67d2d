#include "tuner/boot/token_edit.hpp"

#include <algorithm>
#include <cassert>

#include "tuner/kernel/cmdline.hpp"

namespace hugetune::boot {

std::string apply_replacements(std::string_view text, std::vector<Replacement> replacements) {
    std::sort(replacements.begin(), replacements.end(),
              [](const Replacement& a, const Replacement& b) {
                  return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
              });
    std::string out;
    out.reserve(text.size() + 64);
    std::size_t at = 0;
    for (const auto& r : replacements) {
        assert(r.begin >= at && r.end >= r.begin && r.end <= text.size());
        out.append(text.substr(at, r.begin - at));
        out.append(r.text);
        at = r.end;
    }
    out.append(text.substr(at));
    return out;
}

namespace {

// A token of the command line: blanks separate, double quotes group.
struct Token {
    std::size_t first = 0, last = 0;  // piece indexes, inclusive
};

// lib/cmdline.c next_arg(): a '"' toggles quoting and blanks inside quotes do not split.
std::vector<Token> split_tokens(const std::vector<WordPiece>& pieces) {
    std::vector<Token> tokens;
    bool in_token = false, in_quote = false;
    for (std::size_t k = 0; k < pieces.size(); ++k) {
        const auto& p = pieces[k];
        if (!in_quote && is_blank_piece(p)) {
            in_token = false;
            continue;
        }
        if (p.kind == WordPiece::Kind::literal && p.ch == '"')
            in_quote = !in_quote;
        if (!in_token) {
            tokens.push_back({k, k});
            in_token = true;
        }
        tokens.back().last = k;
    }
    return tokens;
}

// Whether the token is `name=...` spelled with literal characters, the name as the kernel
// matches it ('-' and '_' alike: same_param_name).
bool token_is_param(const std::vector<WordPiece>& pieces, const Token& token,
                    std::string_view name) {
    if (token.last - token.first + 1 < name.size() + 1)
        return false;
    std::string spelled;
    for (std::size_t k = 0; k <= name.size(); ++k) {
        const auto& p = pieces[token.first + k];
        if (p.kind != WordPiece::Kind::literal)
            return false;
        spelled.push_back(p.ch);
    }
    return spelled.back() == '=' && same_param_name(spelled.substr(0, name.size()), name);
}

}  // namespace

std::string literal_text(const std::vector<WordPiece>& pieces) {
    std::string s;
    for (const auto& p : pieces)
        if (p.kind == WordPiece::Kind::literal)
            s.push_back(p.ch);
    return s;
}

bool edit_param_tokens(const std::vector<WordPiece>& pieces, std::string_view name,
                       const std::optional<std::string>& keep_value,
                       std::vector<Replacement>& out) {
    auto tokens = split_tokens(pieces);
    std::vector<bool> consumed(pieces.size(), false);
    bool kept = false;
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        const Token& tok = tokens[t];
        if (!token_is_param(pieces, tok, name))
            continue;
        if (keep_value && !kept) {
            kept = true;
            std::size_t eq = tok.first + name.size();
            out.push_back({pieces[eq].end, pieces[eq].end, *keep_value});
            for (std::size_t k = eq + 1; k <= tok.last; ++k)
                out.push_back({pieces[k].begin, pieces[k].end, ""});
            continue;
        }
        for (std::size_t k = tok.first; k <= tok.last; ++k)
            out.push_back({pieces[k].begin, pieces[k].end, ""});
        // One separating blank goes with the token: the one before it, else the one after,
        // so that "a X b" becomes "a b" and "X b" becomes "b".
        std::optional<std::size_t> blank;
        if (tok.first > 0 && is_blank_piece(pieces[tok.first - 1]) && !consumed[tok.first - 1])
            blank = tok.first - 1;
        else if (tok.last + 1 < pieces.size() && is_blank_piece(pieces[tok.last + 1]))
            blank = tok.last + 1;
        if (blank) {
            consumed[*blank] = true;
            out.push_back({pieces[*blank].begin, pieces[*blank].end, ""});
        }
    }
    return kept;
}

bool is_safe_param_value(std::string_view value) {
    return !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    });
}

}  // namespace hugetune::boot
