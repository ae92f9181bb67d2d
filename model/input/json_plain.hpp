// A fast reader for the plain part of JSON that hugetune itself writes: ASCII strings without
// escapes, numbers an integer or a double holds exactly as written, true, false, null, objects
// with distinct keys and arrays, at any depth. It builds the very document nlohmann/json's
// parser builds (the same value types: an unsigned integer for a number without sign, fraction
// or exponent), in about a third of its time, because it reads numbers with std::from_chars in
// place instead of copying them a character at a time into a buffer for strtod.
//
// It never decides that a text is wrong: anything outside that plain part (an escape, a byte
// above 0x7f, a number beyond its type, a key given twice, a syntax error) makes it give up, and
// the caller reads the text with the full parser, which then gives the answer and, for a bad
// text, the message with its byte. So a text is accepted or refused exactly as before, only
// sooner. tests/unit/model/test_json_text.cpp holds the two readers to the same documents.
#pragma once

#include <cstddef>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace hugetune::model {

// What the reader may write beside the document: the document's text as nlohmann/json's dump()
// writes it (no indent), without the top-level member `omit` when one is named. It costs a
// fraction of dump() on the document read, since the text is copied as it is read and only
// doubles are formatted again (as dump() formats them). It is written only where the objects'
// keys come in the order dump() writes them (std::map's, byte by byte), which is how hugetune
// writes them: `written` says so; where it is false the caller dumps the document.
struct CompactText {
    std::string omit;  // a top-level member to leave out of `text`, or empty
    std::string text;
    bool written = false;
};

// The document, or nothing when the text holds anything beyond the plain part (above) or
// objects and arrays nested more than `max_depth` deep. With `compact`, also its text.
std::optional<nlohmann::json> read_plain_json(
    std::string_view text, std::size_t max_depth = std::numeric_limits<std::size_t>::max(),
    CompactText* compact = nullptr);

}  // namespace hugetune::model
