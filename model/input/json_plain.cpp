#include "model/input/json_plain.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

namespace hugetune::model {
namespace {

using json = nlohmann::json;

// One pass over the text with the containers being read on a stack of its own (no recursion,
// so depth costs memory, not the call stack). Every member returns false to give up. With a
// CompactText, each token is also written as dump() writes it (json_plain.hpp).
class PlainReader {
  public:
    PlainReader(std::string_view text, std::size_t max_depth, CompactText* compact)
        : at_(text.data()), end_(text.data() + text.size()), max_depth_(max_depth) {
        if (compact != nullptr) {
            out_ = &compact->text;
            out_->clear();
            out_->reserve(text.size());
            omit_ = compact->omit;
        }
    }

    // Whether the text written is dump()'s: every object's keys in dump()'s order.
    bool in_order() const { return in_order_; }

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
                json& container = *open_.back().container;
                skip_space();
                if (at_ == end_)
                    return false;
                const char c = *at_++;
                if (c == (container.is_array() ? ']' : '}')) {
                    if (open_.size() == 1)
                        omitting_ = false;
                    put(c);
                    open_.pop_back();
                    continue;
                }
                if (c != ',')
                    return false;
                if (container.is_array()) {
                    put(',');
                    slot = &container.get_ref<json::array_t&>().emplace_back();
                } else {
                    skip_space();
                    slot = member();
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
                put('{');
                skip_space();
                if (at_ != end_ && *at_ == '}') {
                    ++at_;
                    put('}');
                    return true;
                }
                open_.push_back({&slot, {}, 0, 0});
                first = member();
                return first != nullptr;
            case '[':
                ++at_;
                slot = json::array();
                put('[');
                skip_space();
                if (at_ != end_ && *at_ == ']') {
                    ++at_;
                    put(']');
                    return true;
                }
                open_.push_back({&slot, {}, 0, 0});
                first = &slot.get_ref<json::array_t&>().emplace_back();
                return true;
            case '"': {
                std::string_view text;
                if (!string(text))
                    return false;
                slot = std::string(text);
                put_string(text);
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

    // `"key":` in the innermost object being read; the member's slot, or nullptr. The text
    // written gets the comma before it, unless it is the first written there.
    json* member() {
        std::string_view key;
        if (at_ == end_ || *at_ != '"' || !string(key))
            return nullptr;
        skip_space();
        if (at_ == end_ || *at_ != ':')
            return nullptr;
        ++at_;
        Open& open = open_.back();
        auto& object = open.container->get_ref<json::object_t&>();
        // Keys in dump()'s order (hugetune writes them so) go at the map's end with no search.
        const bool after_last = open.members == 0 || open.last_key < key;
        json::object_t::iterator member;
        if (after_last) {
            member = object.emplace_hint(object.end(), std::string(key), nullptr);
        } else {
            bool added = false;
            std::tie(member, added) = object.emplace(std::string(key), nullptr);
            if (!added)
                return nullptr;
        }
        open.last_key = key;
        ++open.members;
        if (out_ != nullptr) {
            if (!after_last)  // dump() writes them sorted
                in_order_ = false;
            if (open_.size() == 1)  // a top-level member: the one left out is never written
                omitting_ = !omit_.empty() && key == omit_;
            if (!omitting_) {
                if (open.written++ > 0)
                    out_->push_back(',');
                put_string(key);
                out_->push_back(':');
            }
        }
        return &member->second;
    }

    void put(char c) {
        if (out_ != nullptr && !omitting_)
            out_->push_back(c);
    }

    void put(std::string_view text) {
        if (out_ != nullptr && !omitting_)
            out_->append(text);
    }

    // A plain string as dump() writes it: printable ASCII needs no escape.
    void put_string(std::string_view text) {
        if (out_ == nullptr || omitting_)
            return;
        out_->push_back('"');
        out_->append(text);
        out_->push_back('"');
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
        put(w);
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
            put(v == 0 ? std::string_view("0") : std::string_view(start, at_ - start));  // -0
            return true;
        }
        if (integer) {
            std::uint64_t v = 0;
            const auto r = std::from_chars(start, at_, v);
            if (r.ec != std::errc() || r.ptr != at_)
                return false;
            slot = v;
            put(std::string_view(start, at_ - start));
            return true;
        }
        double v = 0;
        const auto r = std::from_chars(start, at_, v);
        if (r.ec != std::errc() || r.ptr != at_)
            return false;
        slot = v;
        if (out_ != nullptr && !omitting_) {
            // dump()'s own formatting of a double (a finite one: from_chars gave it).
            std::array<char, 64> digits{};
            const char* end =
                nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), v);
            out_->append(digits.data(), static_cast<std::size_t>(end - digits.data()));
        }
        return true;
    }

    // An object or array being read; for an object, what the text written needs.
    struct Open {
        json* container = nullptr;
        std::string_view last_key;  // in the text read
        std::size_t members = 0, written = 0;
    };

    const char* at_;
    const char* end_;
    std::size_t max_depth_;
    std::vector<Open> open_;  // the objects and arrays being read, innermost last
    std::string* out_ = nullptr;
    std::string omit_;
    bool omitting_ = false;  // inside the top-level member left out
    bool in_order_ = true;
};

}  // namespace

std::optional<nlohmann::json> read_plain_json(std::string_view text, std::size_t max_depth,
                                              CompactText* compact) {
    nlohmann::json document;
    PlainReader reader(text, max_depth, compact);
    const bool read = reader.read(document);
    if (compact != nullptr) {
        compact->written = read && reader.in_order();
        if (!compact->written)
            std::string().swap(compact->text);
    }
    if (!read)
        return std::nullopt;
    return document;
}

}  // namespace hugetune::model
