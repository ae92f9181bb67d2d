#include "model/input/json_text.hpp"

#include <set>
#include <vector>

namespace hugetune::model {
namespace {

// The parser's own words after its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " prefix.
std::string parser_words(const std::string& what) {
    for (const char* start : {"syntax error", "number overflow", "invalid"}) {
        if (const auto at = what.find(start); at != std::string::npos)
            return what.substr(at);
    }
    const auto bracket = what.find("] ");
    return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

}  // namespace

nlohmann::json parse_json_document(std::string_view text,
                                   const nlohmann::json::parser_callback_t& callback) {
    using Event = nlohmann::json::parse_event_t;
    std::vector<std::set<std::string>> keys;  // one set per object being read
    const auto checked = [&](int depth, Event event, nlohmann::json& parsed) {
        if (event == Event::object_start) {
            keys.emplace_back();
        } else if (event == Event::object_end) {
            if (!keys.empty())
                keys.pop_back();
        } else if (event == Event::key && !keys.empty() &&
                   !keys.back().insert(parsed.get<std::string>()).second) {
            std::string key = parsed.get<std::string>();
            if (key.size() > 60)
                key = key.substr(0, 60) + "...";
            throw JsonTextError("key '" + key + "' appears twice in one object", 0, false);
        }
        return callback ? callback(depth, event, parsed) : true;
    };
    try {
        return nlohmann::json::parse(text, checked);
    } catch (const nlohmann::json::parse_error& e) {
        throw JsonTextError(parser_words(e.what()), e.byte, e.byte >= text.size());
    } catch (const nlohmann::json::out_of_range& e) {  // 406: a number beyond a double
        throw JsonTextError(parser_words(e.what()) + " (a number no double holds)", 0, false);
    }
}

}  // namespace hugetune::model
