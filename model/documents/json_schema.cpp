#include "model/documents/json_schema.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

namespace hugetune::model {
namespace {

using json = nlohmann::json;

const std::set<std::string> kKnown = {"type",
                                      "required",
                                      "properties",
                                      "additionalProperties",
                                      "const",
                                      "enum",
                                      "minimum",
                                      "maximum",
                                      "exclusiveMinimum",
                                      "minItems",
                                      "minLength",
                                      "maxLength",
                                      "pattern",
                                      "items",
                                      "oneOf",
                                      "$ref",
                                      "$defs",
                                      "format",
                                      "description",
                                      "title",
                                      "$id",
                                      "$schema"};

bool has_type(const json& doc, const std::string& type) {
    if (type == "object")
        return doc.is_object();
    if (type == "array")
        return doc.is_array();
    if (type == "string")
        return doc.is_string();
    if (type == "boolean")
        return doc.is_boolean();
    if (type == "null")
        return doc.is_null();
    if (type == "number")
        return doc.is_number();
    if (type == "integer")  // 2.0 is an integer to JSON Schema
        return doc.is_number_integer() ||
               (doc.is_number_float() && std::trunc(doc.get<double>()) == doc.get<double>());
    throw std::logic_error("JSON Schema type '" + type + "' is not supported");
}

std::string child(const std::string& path, const std::string& key) {
    return (path == "/" ? "" : path) + "/" + key;
}

std::optional<std::string> fail(const std::string& path, const std::string& what) {
    return path + ": " + what;
}

}  // namespace

JsonSchema::JsonSchema(json schema) : schema_(std::move(schema)) {}

const std::set<std::string>& JsonSchema::keywords() {
    return kKnown;
}

std::optional<std::string> JsonSchema::problem(const json& doc) const {
    return check(schema_, doc, "/");
}

const std::regex& JsonSchema::regex(const std::string& pattern) const {
    auto it = regexes_.find(pattern);
    if (it == regexes_.end())
        it = regexes_.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first;
    return it->second;
}

std::optional<std::string> JsonSchema::check(const json& schema, const json& doc,
                                             const std::string& path) const {
    if (schema.is_boolean())
        return schema.get<bool>() ? std::nullopt : fail(path, "not allowed here");
    for (const auto& [keyword, value] : schema.items())
        if (!kKnown.count(keyword))
            throw std::logic_error("JSON Schema keyword '" + keyword + "' is not supported");
    if (const auto it = schema.find("$ref"); it != schema.end()) {
        const std::string ref = it->get<std::string>();
        if (ref.rfind("#/$defs/", 0) != 0)
            throw std::logic_error("JSON Schema $ref '" + ref + "' is not into #/$defs/");
        if (auto p = check(schema_.at("$defs").at(ref.substr(8)), doc, path))
            return p;
    }
    if (const auto it = schema.find("type"); it != schema.end()) {
        bool ok = false;
        for (const auto& t : it->is_array() ? *it : json::array({*it}))
            ok = ok || has_type(doc, t.get<std::string>());
        if (!ok)
            return fail(path, "is " + std::string(doc.type_name()) + ", the schema wants " +
                                  (it->is_array() ? it->dump() : it->get<std::string>()));
    }
    if (const auto it = schema.find("oneOf"); it != schema.end()) {
        int matches = 0;
        std::optional<std::string> last;
        for (const auto& option : *it)
            if (auto p = check(option, doc, path))
                last = p;
            else
                ++matches;
        if (matches != 1)
            return matches == 0 ? last : fail(path, "matches more than one of oneOf");
    }
    if (doc.is_object())
        if (auto p = check_object(schema, doc, path))
            return p;
    if (doc.is_array()) {
        if (const auto it = schema.find("minItems"); it != schema.end() && doc.size() < *it)
            return fail(path, "has fewer than " + it->dump() + " items");
        if (const auto it = schema.find("items"); it != schema.end())
            for (std::size_t i = 0; i < doc.size(); ++i)
                if (auto p = check(*it, doc[i], child(path, std::to_string(i))))
                    return p;
    }
    return check_value(schema, doc, path);
}

std::optional<std::string> JsonSchema::check_object(const json& schema, const json& doc,
                                                    const std::string& path) const {
    if (const auto it = schema.find("required"); it != schema.end())
        for (const auto& key : *it)
            if (!doc.contains(key.get<std::string>()))
                return fail(child(path, key.get<std::string>()), "missing");
    const auto props = schema.find("properties");
    const auto extra = schema.find("additionalProperties");
    for (const auto& [key, value] : doc.items()) {
        if (props != schema.end() && props->contains(key)) {
            if (auto p = check(props->at(key), value, child(path, key)))
                return p;
        } else if (extra != schema.end()) {
            if (auto p = check(*extra, value, child(path, key)))
                return p;
        }
    }
    return std::nullopt;
}

std::optional<std::string> JsonSchema::check_value(const json& schema, const json& doc,
                                                   const std::string& path) const {
    if (const auto it = schema.find("const"); it != schema.end() && doc != *it)
        return fail(path, "is not " + it->dump());
    if (const auto it = schema.find("enum"); it != schema.end()) {
        bool found = false;
        for (const auto& v : *it)
            found = found || v == doc;
        if (!found)
            return fail(path, doc.dump() + " is not one of " + it->dump());
    }
    if (doc.is_number()) {
        const double x = doc.get<double>();
        if (const auto it = schema.find("minimum"); it != schema.end() && x < it->get<double>())
            return fail(path, "is below " + it->dump());
        if (const auto it = schema.find("maximum"); it != schema.end() && x > it->get<double>())
            return fail(path, "is above " + it->dump());
        if (const auto it = schema.find("exclusiveMinimum");
            it != schema.end() && x <= it->get<double>())
            return fail(path, "is not above " + it->dump());
    }
    if (doc.is_string()) {
        const auto& s = doc.get_ref<const std::string&>();
        // Code points, as JSON Schema counts; UTF-8 continuation bytes are not characters.
        std::size_t chars = 0;
        for (const unsigned char c : s)
            chars += (c & 0xC0) != 0x80;
        if (const auto it = schema.find("minLength"); it != schema.end() && chars < *it)
            return fail(path, "is shorter than " + it->dump() + " characters");
        // Before the pattern: no regular expression runs over a string longer than allowed.
        if (const auto it = schema.find("maxLength"); it != schema.end() && chars > *it)
            return fail(path, "is longer than " + it->dump() + " characters");
        if (const auto it = schema.find("pattern");
            it != schema.end() && !std::regex_search(s, regex(it->get<std::string>())))
            return fail(path, "does not match " + it->dump());
    }
    return std::nullopt;
}

}  // namespace hugetune::model
