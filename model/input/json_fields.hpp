// Typed fields of a JSON document read by their JSON path, with one error format: InputError
// "<json path>: problem; fix" (points[2].threads_per_node: must be at least 1; give ...) about
// the document the root was made with. Shared by every reader of a document a user hands
// hugetune (a sweep, a report).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/enum_names.hpp"
#include "model/input/input_error.hpp"

namespace hugetune::model {

// A whole number's allowed range, inclusive.
struct WholeRange {
    std::int64_t min = 1;
    std::int64_t max = std::numeric_limits<std::int64_t>::max();
};

// One value of a document and the path that names it. A missing member and JSON null both read
// as absent, so a child of an absent value is absent too and optional fields need no checks.
class JsonField {
  public:
    // The whole document. `fix` ends every error about it unless a reader gives its own; every
    // error names `input`.
    explicit JsonField(const nlohmann::json& document, Message fix = {}, InputSource input = {});

    JsonField operator[](std::string_view key) const;
    JsonField operator[](std::size_t index) const;

    bool present() const { return value_ != nullptr; }
    // Present and an object: a hint's test that copies nothing.
    bool is_object() const { return value_ != nullptr && value_->is_object(); }
    const std::string& path() const { return path_; }
    const InputSource& input() const { return context_->input; }

    // The same value with another fix for its errors (a field with its own way out).
    JsonField with_fix(Message fix) const;

    [[noreturn]] void fail(const std::string& problem) const;

    // Required fields: "missing" when absent, "must be ..." when of another type or range.
    const nlohmann::json& object() const;
    std::size_t array_size() const;  // elements through operator[](index)
    std::string string() const;
    bool boolean() const;
    double positive_number() const;      // finite and above 0
    double non_negative_number() const;  // finite and at least 0 (a prediction may be zero)
    std::int64_t whole_number(WholeRange range = {}) const;

    // The elements of an array, each read as positive_number() (its error names the element);
    // empty when absent or not an array. Paths are built only for an error: a sweep may hold a
    // million samples.
    std::vector<double> positive_numbers() const;

    // Optional fields: absent reads as nullopt; present, as the required reader.
    std::optional<std::string> optional_string() const;
    std::optional<double> optional_positive_number() const;
    std::optional<double> optional_non_negative_number() const;
    std::optional<bool> optional_boolean() const;
    // A count that may be missing, read as whole_number(range) (range.min at least 0).
    std::optional<std::uint64_t> optional_count(WholeRange range) const;

    // A machine fact that only informs: the value when present and of type T, otherwise
    // nullopt, never an error (probes of other versions word some facts differently).
    template <typename T>
    std::optional<T> hint() const {
        return hint_of<T>(value_);
    }

    // The same of the member `key`: (*this)[key].hint<T>() without making the member's field
    // (its path is needed only for an error, and a hint makes none).
    template <typename T>
    std::optional<T> hint(std::string_view key) const {
        if (value_ == nullptr || !value_->is_object())
            return std::nullopt;
        const auto it = value_->find(key);
        return hint_of<T>(it == value_->end() || it->is_null() ? nullptr : &*it);
    }

    // The value as the document has it, for a block kept and written again: null when absent.
    nlohmann::json kept() const { return value_ != nullptr ? *value_ : nlohmann::json(nullptr); }

    // How many elements a hinted array has: 0 when absent or not an array.
    std::size_t hint_size() const {
        return value_ != nullptr && value_->is_array() ? value_->size() : 0;
    }

  private:
    // `value` as T, or nothing when absent or of another type.
    template <typename T>
    static std::optional<T> hint_of(const nlohmann::json* value) {
        if (value == nullptr)
            return std::nullopt;
        try {
            return value->get<T>();
        } catch (const nlohmann::json::exception&) {
            return std::nullopt;
        }
    }

    // What every error about a field says beside its path: shared by a document's fields, so
    // reading one (a report has thousands) copies no text.
    struct Context {
        Message fix;
        InputSource input;
    };
    JsonField(const nlohmann::json* value, std::string path, std::shared_ptr<const Context> context)
        : value_(value), path_(std::move(path)), context_(std::move(context)) {}
    JsonField child(const nlohmann::json* value, std::string path) const {
        return {value, std::move(path), context_};
    }
    const nlohmann::json& required() const;

    const nlohmann::json* value_;  // null: absent
    std::string path_;             // empty: the document itself
    std::shared_ptr<const Context> context_;
};

// A required string naming one of an enum's values by its table (model/enum_names.hpp):
// "'x' is not one of a, b, c" otherwise.
template <typename Enum, std::size_t N>
Enum named_value(const JsonField& field, const EnumNames<Enum, N>& names) {
    const std::string text = field.string();
    if (const auto value = value_named(names, text))
        return *value;
    field.fail("'" + text + "' is not one of " + names_text(names));
}

struct SweepData;

// The measured part of a sweep (`parameters`, `complete`, `points`) and the probe facts beside
// it (`cpu`, `topology`, `kernel`, `virtualization`), wherever a document keeps them: a sweep
// document holds the probe in `probe`, a report holds the sweep in `sweep` and the probe's
// blocks at its top. Errors name each field by its path in the whole document.
SweepData read_sweep_fields(const JsonField& sweep, const JsonField& probe);

}  // namespace hugetune::model
