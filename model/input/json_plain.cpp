#include "model/input/json_plain.hpp"

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

namespace hugetune::model {
namespace {

using json = nlohmann::json;

// One pass over the text with the containers being read on a stack of its own (no recursion,
// so depth costs memory, not the call stack). Every member returns false to give up.
class PlainReader {
  public:
    PlainReader(std::string_view text, std::size_t max_depth)
        : at_(text.data()), end_(text.data() + text.size()), max_depth_(max_depth) {}

    bool read(json& root) {
        json* slot = &root;  // where the next value goes
        for (;;) {
            skip_space();
            json* first = nullptr;
            if (!value(*slot, first))
                return false;
            if (first != nullptr) {  // a container opened: its first value comes next
                slot = first;
                continue;
            }
            // After a value: close what ends here, then find the next slot.
            for (slot = nullptr; slot == nullptr;) {
                if (open_.empty()) {
                    skip_space();
                    return at_ == end_;
                }
                json& container = *open_.back();
                skip_space();
                if (at_ == end_)
                    return false;
                const char c = *at_++;
                if (c == (container.is_array() ? ']' : '}')) {
                    open_.pop_back();
                    continue;
                }
                if (c != ',')
                    return false;
                if (container.is_array()) {
                    slot = &container.get_ref<json::array_t&>().emplace_back();
                } else {
                    skip_space();
                    slot = member(container);
                    if (slot == nullptr)
                        return false;
                }
            }
        }
    }

  private:
    void skip_space() {
        while (at_ != end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t'))
            ++at_;
    }

    // A value into `slot`. An object or array that is not empty is opened, and `first` is
    // its first value's slot, filled at the caller's next turn: nesting costs no recursion.
    bool value(json& slot, json*& first) {
        if (at_ == end_)
            return false;
        if ((*at_ == '{' || *at_ == '[') && open_.size() >= max_depth_)
            return false;
        switch (*at_) {
            case '{':
                ++at_;
                slot = json::object();
                skip_space();
                if (at_ != end_ && *at_ == '}') {
                    ++at_;
                    return true;
                }
                first = member(slot);
                if (first == nullptr)
                    return false;
                open_.push_back(&slot);
                return true;
            case '[':
                ++at_;
                slot = json::array();
                skip_space();
                if (at_ != end_ && *at_ == ']') {
                    ++at_;
                    return true;
                }
                open_.push_back(&slot);
                first = &slot.get_ref<json::array_t&>().emplace_back();
                return true;
            case '"': {
                std::string_view text;
                if (!string(text))
                    return false;
                slot = std::string(text);
                return true;
            }
            case 't':
                return word("true") && (slot = true, true);
            case 'f':
                return word("false") && (slot = false, true);
            case 'n':
                return word("null") && (slot = nullptr, true);
            default:
                return number(slot);
        }
    }

    // `"key":` in the object `container`; the member's slot, or nullptr.
    json* member(json& container) {
        std::string_view key;
        if (at_ == end_ || *at_ != '"' || !string(key))
            return nullptr;
        skip_space();
        if (at_ == end_ || *at_ != ':')
            return nullptr;
        ++at_;
        auto& object = container.get_ref<json::object_t&>();
        const auto [member, added] = object.emplace(std::string(key), nullptr);
        return added ? &member->second : nullptr;
    }

    // A string of printable ASCII without escapes: its text between the quotes.
    bool string(std::string_view& text) {
        const char* start = ++at_;
        while (at_ != end_) {
            const auto c = static_cast<unsigned char>(*at_);
            if (c == '"') {
                text = std::string_view(start, static_cast<std::size_t>(at_ - start));
                ++at_;
                return true;
            }
            if (c == '\\' || c < 0x20 || c >= 0x80)
                return false;
            ++at_;
        }
        return false;
    }

    bool word(std::string_view w) {
        if (static_cast<std::size_t>(end_ - at_) < w.size() || std::string_view(at_, w.size()) != w)
            return false;
        at_ += w.size();
        return true;
    }

    static bool digit(char c) { return c >= '0' && c <= '9'; }

    bool digits() {
        if (at_ == end_ || !digit(*at_))
            return false;
        while (at_ != end_ && digit(*at_))
            ++at_;
        return true;
    }

    // RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, read as nlohmann/json
    // reads it: without fraction or exponent an unsigned integer, or a signed one after '-';
    // else a double. A number its type cannot hold is left to the full parser, which turns an
    // integer too large into a double and refuses a double too large.
    bool number(json& slot) {
        const char* start = at_;
        const bool negative = at_ != end_ && *at_ == '-';
        if (negative)
            ++at_;
        if (at_ == end_)
            return false;
        if (*at_ == '0')
            ++at_;
        else if (!digits())
            return false;
        bool integer = true;
        if (at_ != end_ && *at_ == '.') {
            ++at_;
            if (!digits())
                return false;
            integer = false;
        }
        if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
            ++at_;
            if (at_ != end_ && (*at_ == '+' || *at_ == '-'))
                ++at_;
            if (!digits())
                return false;
            integer = false;
        }
        if (integer && negative) {
            std::int64_t v = 0;
            const auto r = std::from_chars(start, at_, v);
            if (r.ec != std::errc() || r.ptr != at_)
                return false;
            slot = v;
            return true;
        }
        if (integer) {
            std::uint64_t v = 0;
            const auto r = std::from_chars(start, at_, v);
            if (r.ec != std::errc() || r.ptr != at_)
                return false;
            slot = v;
            return true;
        }
        double v = 0;
        const auto r = std::from_chars(start, at_, v);
        if (r.ec != std::errc() || r.ptr != at_)
            return false;
        slot = v;
        return true;
    }

    const char* at_;
    const char* end_;
    std::size_t max_depth_;
    std::vector<json*> open_;  // the objects and arrays being read, innermost last
};

}  // namespace

std::optional<nlohmann::json> read_plain_json(std::string_view text, std::size_t max_depth) {
    nlohmann::json document;
    PlainReader reader(text, max_depth);
    if (!reader.read(document))
        return std::nullopt;
    return document;
}

}  // namespace hugetune::model
