#include "model/input/json_fields.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "model/input/fit_input.hpp"
#include "model/text.hpp"

namespace hugetune::model {

using nlohmann::json;

namespace {

const json* present_or_null(const json* value) {
    return value == nullptr || value->is_null() ? nullptr : value;
}

}  // namespace

JsonField::JsonField(const json& document, Message fix, InputSource input)
    : JsonField(present_or_null(&document), {},
                std::make_shared<const Context>(Context{std::move(fix), std::move(input)})) {}

JsonField JsonField::operator[](std::string_view key) const {
    std::string path;
    path.reserve(path_.size() + 1 + key.size());
    if (!path_.empty())
        path.append(path_).push_back('.');
    path.append(key);
    if (value_ == nullptr || !value_->is_object())
        return child(nullptr, path);
    const auto it = value_->find(key);
    return child(it == value_->end() ? nullptr : present_or_null(&*it), path);
}

JsonField JsonField::operator[](std::size_t index) const {
    const std::string path = path_ + "[" + std::to_string(index) + "]";
    if (value_ == nullptr || !value_->is_array() || index >= value_->size())
        return child(nullptr, path);
    return child(present_or_null(&(*value_)[index]), path);
}

JsonField JsonField::with_fix(Message fix) const {
    return {value_, path_,
            std::make_shared<const Context>(Context{std::move(fix), context_->input})};
}

void JsonField::fail(const std::string& problem) const {
    // The path and the problem may quote the document's own keys and strings.
    const Message& fix = context_->fix;
    Message message = printable_text((path_.empty() ? "document" : path_) + ": " + problem);
    if (!fix.empty())
        message += "; " + fix;
    throw InputError(context_->input, std::nullopt, message);
}

const json& JsonField::required() const {
    if (value_ == nullptr)
        fail("missing");
    return *value_;
}

const json& JsonField::object() const {
    const json& v = required();
    if (!v.is_object())
        fail("must be an object");
    return v;
}

std::size_t JsonField::array_size() const {
    const json& v = required();
    if (!v.is_array())
        fail("must be an array");
    return v.size();
}

std::string JsonField::string() const {
    const json& v = required();
    if (!v.is_string())
        fail("must be a string");
    return v.get<std::string>();
}

double JsonField::positive_number() const {
    const json& v = required();
    if (!v.is_number())
        fail("must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d <= 0)
        fail("must be above 0");
    return d;
}

double JsonField::non_negative_number() const {
    const json& v = required();
    if (!v.is_number())
        fail("must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0)
        fail("must be at least 0");
    return d;
}

std::int64_t JsonField::whole_number(WholeRange range) const {
    const json& v = required();
    const bool bounded = range.max != WholeRange{}.max;
    const std::string expected = bounded
                                     ? "must be a whole number from " + std::to_string(range.min) +
                                           " to " + std::to_string(range.max)
                                     : "must be a whole number";
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(range.max))
        fail(expected);
    if (!v.is_number_integer())
        fail(expected);
    const auto i = v.get<std::int64_t>();
    if (i < range.min || i > range.max)
        fail(bounded ? expected : "must be at least " + std::to_string(range.min));
    return i;
}

std::vector<double> JsonField::positive_numbers() const {
    std::vector<double> numbers;
    if (value_ == nullptr || !value_->is_array())
        return numbers;
    numbers.reserve(value_->size());
    for (std::size_t i = 0; i < value_->size(); ++i) {
        const json& v = (*value_)[i];
        const double d = v.is_number() ? v.get<double>() : 0;
        numbers.push_back(std::isfinite(d) && d > 0 ? d : (*this)[i].positive_number());
    }
    return numbers;
}

std::optional<std::string> JsonField::optional_string() const {
    return present() ? std::optional(string()) : std::nullopt;
}

bool JsonField::boolean() const {
    const json& v = required();
    if (!v.is_boolean())
        fail("must be true or false");
    return v.get<bool>();
}

std::optional<bool> JsonField::optional_boolean() const {
    return present() ? std::optional(boolean()) : std::nullopt;
}

std::optional<std::uint64_t> JsonField::optional_count(WholeRange range) const {
    if (!present())
        return std::nullopt;
    return static_cast<std::uint64_t>(whole_number(range));
}

std::optional<double> JsonField::optional_non_negative_number() const {
    return present() ? std::optional(non_negative_number()) : std::nullopt;
}

std::optional<double> JsonField::optional_positive_number() const {
    return present() ? std::optional(positive_number()) : std::nullopt;
}

}  // namespace hugetune::model
