// The one parser of JSON documents that users or other machines hand hugetune (reports, sweeps,
// state files). Beyond the grammar it refuses what JSON readers take in different ways: a
// number no double holds (1e999, which nlohmann/json reports as an overflow, not a syntax
// error) and a key given twice in one object (nlohmann/json keeps the last, others the first),
// so no two readers of one document can see two different documents. It holds every document
// to one size and depth (fit_input.hpp kMaxInputBytes, kMaxJsonDepth).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "model/errors.hpp"
#include "model/input/json_plain.hpp"

namespace hugetune::model {

// A text that is no JSON document hugetune reads: bad input (exit 2) wherever it is not read
// into a message naming the file first.
class JsonTextError : public Error {
  public:
    // `byte`: where the parser stopped (1-based, as nlohmann/json counts; 0 when unknown).
    JsonTextError(const std::string& detail, std::size_t byte, bool truncated,
                  bool beyond_bounds = false)
        : Error(ExitCode::usage, detail),
          byte_(byte),
          truncated_(truncated),
          beyond_bounds_(beyond_bounds) {}
    std::size_t byte() const { return byte_; }
    bool truncated() const { return truncated_; }  // the text ended before the document did
    // Larger or deeper than any document hugetune reads; what() names the bound.
    bool beyond_bounds() const { return beyond_bounds_; }

  private:
    std::size_t byte_;
    bool truncated_;
    bool beyond_bounds_;
};

// Throws JsonTextError, whose what() is the problem in a few words ("syntax error while
// parsing value - unexpected end of input", "number overflow parsing '1e999'", "key 'host'
// appears twice in one object", "larger than 64 MiB"). `callback`, when given, sees every event
// as with nlohmann::json::parse.
nlohmann::json parse_json_document(std::string_view text,
                                   const nlohmann::json::parser_callback_t& callback = nullptr);

// The same, and `compact` written (json_plain.hpp) where the fast reader read the text; its
// `written` says whether it was.
nlohmann::json parse_json_document(std::string_view text, CompactText& compact);

}  // namespace hugetune::model
