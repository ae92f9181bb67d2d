#include "model/input/json_text.hpp"

#include "model/input/fit_input.hpp"
#include "model/input/json_plain.hpp"

#include <nlohmann/json.hpp>
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

[[noreturn]] void too_large() {
    throw JsonTextError("larger than " + std::to_string(kMaxInputBytes >> 20) + " MiB", 0, false,
                        true);
}

[[noreturn]] void too_deep() {
    throw JsonTextError("objects and arrays nested deeper than " + std::to_string(kMaxJsonDepth), 0,
                        false, true);
}

[[noreturn]] void key_twice(std::string key) {
    if (key.size() > 60)
        key = key.substr(0, 60) + "...";
    throw JsonTextError("key '" + key + "' appears twice in one object", 0, false);
}

// The parser's errors as JsonTextError.
template <class Parse>
nlohmann::json parse_text(std::string_view text, Parse&& parse) {
    try {
        return parse();
    } catch (const nlohmann::json::parse_error& e) {
        throw JsonTextError(parser_words(e.what()), e.byte, e.byte >= text.size());
    } catch (const nlohmann::json::out_of_range& e) {  // 406: a number beyond a double
        throw JsonTextError(parser_words(e.what()) + " (a number no double holds)", 0, false);
    }
}

// nlohmann/json's own document builder (its json_sax_dom_parser) but for a key given twice in
// one object, refused as it comes where the builder keeps the last. A SAX handler, not the
// parser's callback, which copies every key and calls through std::function at every value.
class DocumentBuilder {
  public:
    using json = nlohmann::json;
    explicit DocumentBuilder(json& root) : root_(root) {}
    bool null() { return place(nullptr); }
    bool boolean(bool value) { return place(value); }
    bool number_integer(json::number_integer_t value) { return place(value); }
    bool number_unsigned(json::number_unsigned_t value) { return place(value); }
    bool number_float(json::number_float_t value, const json::string_t&) { return place(value); }
    bool string(json::string_t& value) { return place(value); }
    bool binary(json::binary_t& value) { return place(std::move(value)); }
    bool start_object(std::size_t) { return place(json::value_t::object, true); }
    bool start_array(std::size_t) { return place(json::value_t::array, true); }
    bool key(json::string_t& key) {
        auto& object = open_.back()->get_ref<json::object_t&>();
        const auto [at, added] = object.emplace(key, nullptr);
        if (!added)
            key_twice(key);
        member_ = &at->second;
        return true;
    }
    bool end_object() {
        open_.pop_back();
        return true;
    }
    bool end_array() {
        open_.pop_back();
        return true;
    }
    template <class Exception>
    bool parse_error(std::size_t, const std::string&, const Exception& e) {
        throw e;
    }

  private:
    // The value at its place: the root, the array being read, or the member just keyed.
    template <class Value>
    bool place(Value&& value, bool opens = false) {
        json* at = nullptr;
        if (open_.empty()) {
            root_ = json(std::forward<Value>(value));
            at = &root_;
        } else if (open_.back()->is_array()) {
            auto& array = open_.back()->get_ref<json::array_t&>();
            array.emplace_back(std::forward<Value>(value));
            at = &array.back();
        } else {
            *member_ = json(std::forward<Value>(value));
            at = member_;
        }
        if (opens) {
            if (open_.size() >= kMaxJsonDepth)
                too_deep();
            open_.push_back(at);
        }
        return true;
    }

    json& root_;
    std::vector<json*> open_;  // the objects and arrays being read, innermost last
    json* member_ = nullptr;   // the member of open_.back() whose key came last
};

nlohmann::json parse_without_callback(std::string_view text, CompactText* compact) {
    if (text.size() > kMaxInputBytes)
        too_large();
    // The plain part hugetune writes is read fast; all else, bad texts among it, as always.
    if (auto plain = read_plain_json(text, kMaxJsonDepth, compact))
        return std::move(*plain);
    return parse_text(text, [&] {
        nlohmann::json document;
        DocumentBuilder builder(document);
        nlohmann::json::sax_parse(text, &builder);
        return document;
    });
}

}  // namespace

nlohmann::json parse_json_document(std::string_view text, CompactText& compact) {
    compact.written = false;
    return parse_without_callback(text, &compact);
}

nlohmann::json parse_json_document(std::string_view text,
                                   const nlohmann::json::parser_callback_t& callback) {
    if (!callback)
        return parse_without_callback(text, nullptr);
    if (text.size() > kMaxInputBytes)
        too_large();
    using Event = nlohmann::json::parse_event_t;
    std::vector<std::set<std::string>> keys;  // one set per object being read
    const auto checked = [&](int depth, Event event, nlohmann::json& parsed) {
        if ((event == Event::object_start || event == Event::array_start) &&
            static_cast<std::size_t>(depth) >= kMaxJsonDepth)
            too_deep();
        if (event == Event::object_start) {
            keys.emplace_back();
        } else if (event == Event::object_end) {
            if (!keys.empty())
                keys.pop_back();
        } else if (event == Event::key && !keys.empty() &&
                   !keys.back().insert(parsed.get<std::string>()).second) {
            key_twice(parsed.get<std::string>());
        }
        return callback(depth, event, parsed);
    };
    return parse_text(text, [&] { return nlohmann::json::parse(text, checked); });
}

}  // namespace hugetune::model
