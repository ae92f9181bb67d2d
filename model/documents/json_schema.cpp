#include "model/documents/json_schema.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <vector>

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

enum : unsigned {
    kTypeObject = 1,
    kTypeArray = 2,
    kTypeString = 4,
    kTypeBoolean = 8,
    kTypeNull = 16,
    kTypeNumber = 32,
    kTypeInteger = 64,
};

unsigned type_bit(const std::string& type) {
    if (type == "object")
        return kTypeObject;
    if (type == "array")
        return kTypeArray;
    if (type == "string")
        return kTypeString;
    if (type == "boolean")
        return kTypeBoolean;
    if (type == "null")
        return kTypeNull;
    if (type == "number")
        return kTypeNumber;
    if (type == "integer")
        return kTypeInteger;
    throw std::logic_error("JSON Schema type '" + type + "' is not supported");
}

// The types `doc` is of: a number is also an integer when whole (2.0 is an integer to JSON
// Schema).
unsigned types_of(const json& doc) {
    if (doc.is_object())
        return kTypeObject;
    if (doc.is_array())
        return kTypeArray;
    if (doc.is_string())
        return kTypeString;
    if (doc.is_boolean())
        return kTypeBoolean;
    if (doc.is_null())
        return kTypeNull;
    if (doc.is_number_integer() ||
        (doc.is_number_float() && std::trunc(doc.get<double>()) == doc.get<double>()))
        return kTypeNumber | kTypeInteger;
    return kTypeNumber;
}

const json* member(const json& schema, const char* keyword) {
    const auto it = schema.find(keyword);
    return it == schema.end() ? nullptr : &*it;
}

}  // namespace

JsonSchema::JsonSchema(json schema) : schema_(std::move(schema)) {
    if (const json* defs = member(schema_, "$defs"))
        for (const auto& def : *defs)
            add_nodes(def);
    add_nodes(schema_);
}

// Every subschema's node, made once here: afterwards the validator only reads, so threads may
// share it (fleet ingest checks reports side by side).
void JsonSchema::add_nodes(const json& schema) {
    if (nodes_.count(&schema))
        return;
    const Node& n = add_node(schema);
    if (n.boolean)
        return;
    if (n.properties)
        for (const auto& sub : *n.properties)
            add_nodes(sub);
    if (n.additional && (n.additional->is_object() || n.additional->is_boolean()))
        add_nodes(*n.additional);
    if (n.items)
        add_nodes(*n.items);
    if (n.one_of)
        for (const auto& sub : *n.one_of)
            add_nodes(sub);
}

const std::set<std::string>& JsonSchema::keywords() {
    return kKnown;
}

namespace {

// The JSON pointer of `path`, "/" for the root.
template <class Path>
std::string pointer(const Path& path) {
    std::vector<const Path*> links;
    for (const Path* p = &path; p->up; p = p->up)
        links.push_back(p);
    if (links.empty())
        return "/";
    std::string out;
    for (auto it = links.rbegin(); it != links.rend(); ++it)
        out += "/" + ((*it)->key ? *(*it)->key : std::to_string((*it)->index));
    return out;
}

template <class Path>
std::optional<std::string> fail(const Path& path, const std::string& what) {
    return pointer(path) + ": " + what;
}

}  // namespace

std::optional<std::string> JsonSchema::problem(const json& doc) const {
    return check(schema_, doc, Path{});
}

const std::regex& JsonSchema::regex(const std::string& pattern) {
    auto it = regexes_.find(pattern);
    if (it == regexes_.end())
        it = regexes_.emplace(pattern, std::regex(pattern, std::regex::ECMAScript)).first;
    return it->second;
}

const JsonSchema::Node& JsonSchema::node(const json& schema) const {
    if (const auto it = nodes_.find(&schema); it != nodes_.end())
        return it->second;
    throw std::logic_error("JSON Schema: a subschema the validator did not gather");
}

const JsonSchema::Node& JsonSchema::add_node(const json& schema) {
    Node n;
    if (schema.is_boolean()) {
        n.boolean = schema.get<bool>();
        return nodes_.emplace(&schema, n).first->second;
    }
    for (const auto& [keyword, value] : schema.items())
        if (!kKnown.count(keyword))
            throw std::logic_error("JSON Schema keyword '" + keyword + "' is not supported");
    if (const json* ref = member(schema, "$ref")) {
        const std::string text = ref->get<std::string>();
        if (text.rfind("#/$defs/", 0) != 0)
            throw std::logic_error("JSON Schema $ref '" + text + "' is not into #/$defs/");
        n.ref = &schema_.at("$defs").at(text.substr(8));
    }
    if ((n.type = member(schema, "type")))
        for (const auto& t : n.type->is_array() ? *n.type : json::array({*n.type}))
            n.types |= type_bit(t.get<std::string>());
    n.one_of = member(schema, "oneOf");
    if ((n.required = member(schema, "required"))) {
        for (const auto& key : *n.required)
            n.required_sorted.push_back(key.get<std::string>());
        std::sort(n.required_sorted.begin(), n.required_sorted.end());
        n.required_sorted.erase(std::unique(n.required_sorted.begin(), n.required_sorted.end()),
                                n.required_sorted.end());
    }
    n.properties = member(schema, "properties");
    n.additional = member(schema, "additionalProperties");
    n.min_items = member(schema, "minItems");
    n.items = member(schema, "items");
    n.constant = member(schema, "const");
    n.enumeration = member(schema, "enum");
    n.minimum = member(schema, "minimum");
    n.maximum = member(schema, "maximum");
    n.exclusive_minimum = member(schema, "exclusiveMinimum");
    n.min_length = member(schema, "minLength");
    n.max_length = member(schema, "maxLength");
    if ((n.pattern = member(schema, "pattern")))
        n.pattern_regex = &regex(n.pattern->get<std::string>());
    return nodes_.emplace(&schema, n).first->second;
}

std::optional<std::string> JsonSchema::check(const json& schema, const json& doc,
                                             const Path& path) const {
    const Node& n = node(schema);
    if (n.boolean)
        return *n.boolean ? std::nullopt : fail(path, "not allowed here");
    if (n.ref)
        if (auto p = check(*n.ref, doc, path))
            return p;
    if (n.type && !(n.types & types_of(doc)))
        return fail(path, "is " + std::string(doc.type_name()) + ", the schema wants " +
                              (n.type->is_array() ? n.type->dump() : n.type->get<std::string>()));
    if (n.one_of) {
        // An option whose type the value is not of cannot match: passed over without making
        // its message, which is made below only when no option matches.
        int matches = 0;
        const unsigned types = types_of(doc);
        for (const auto& option : *n.one_of) {
            const Node& o = node(option);
            if (!o.boolean && !o.ref && o.type && !(o.types & types))
                continue;
            if (!check(option, doc, path))
                ++matches;
        }
        if (matches > 1)
            return fail(path, "matches more than one of oneOf");
        if (matches == 0) {
            std::optional<std::string> last;  // the last option's problem
            for (const auto& option : *n.one_of)
                if (auto p = check(option, doc, path))
                    last = p;
            return last;
        }
    }
    if (doc.is_object())
        if (auto p = check_object(n, doc, path))
            return p;
    if (doc.is_array()) {
        if (n.min_items && doc.size() < *n.min_items)
            return fail(path, "has fewer than " + n.min_items->dump() + " items");
        if (n.items)
            for (std::size_t i = 0; i < doc.size(); ++i)
                if (auto p = check(*n.items, doc[i], Path{&path, nullptr, i}))
                    return p;
    }
    return check_value(n, doc, path);
}

std::optional<std::string> JsonSchema::check_object(const Node& n, const json& doc,
                                                    const Path& path) const {
    // The document's members, the schema's properties and the required names are each in the
    // maps' order: one walk over the three finds each member's subschema and counts the
    // required names present, with no search.
    const auto& members = doc.get_ref<const json::object_t&>();
    static const json::object_t kNoProperties;
    const auto& properties = n.properties && n.properties->is_object()
                                 ? n.properties->get_ref<const json::object_t&>()
                                 : kNoProperties;
    if (!n.required_sorted.empty()) {
        std::size_t present = 0;
        auto want = n.required_sorted.begin();
        for (auto m = members.begin(); m != members.end() && want != n.required_sorted.end();) {
            if (m->first < *want) {
                ++m;
            } else {
                present += m->first == *want;
                ++want;
            }
        }
        if (present < n.required_sorted.size())  // the first missing, in `required`'s order
            for (const auto& key : *n.required)
                if (!doc.contains(key.get_ref<const std::string&>()))
                    return fail(Path{&path, &key.get_ref<const std::string&>(), 0}, "missing");
    }
    auto property = properties.begin();
    for (const auto& [key, value] : members) {
        while (property != properties.end() && property->first < key)
            ++property;
        const json* sub = property != properties.end() && property->first == key ? &property->second
                                                                                 : n.additional;
        if (sub)
            if (auto p = check(*sub, value, Path{&path, &key, 0}))
                return p;
    }
    return std::nullopt;
}

std::optional<std::string> JsonSchema::check_value(const Node& n, const json& doc,
                                                   const Path& path) const {
    if (n.constant && doc != *n.constant)
        return fail(path, "is not " + n.constant->dump());
    if (n.enumeration) {
        bool found = false;
        for (const auto& v : *n.enumeration)
            found = found || v == doc;
        if (!found)
            return fail(path, doc.dump() + " is not one of " + n.enumeration->dump());
    }
    if (doc.is_number()) {
        const double x = doc.get<double>();
        if (n.minimum && x < n.minimum->get<double>())
            return fail(path, "is below " + n.minimum->dump());
        if (n.maximum && x > n.maximum->get<double>())
            return fail(path, "is above " + n.maximum->dump());
        if (n.exclusive_minimum && x <= n.exclusive_minimum->get<double>())
            return fail(path, "is not above " + n.exclusive_minimum->dump());
    }
    if (doc.is_string()) {
        const auto& s = doc.get_ref<const std::string&>();
        // Code points, as JSON Schema counts; UTF-8 continuation bytes are not characters.
        std::size_t chars = 0;
        for (const unsigned char c : s)
            chars += (c & 0xC0) != 0x80;
        if (n.min_length && chars < *n.min_length)
            return fail(path, "is shorter than " + n.min_length->dump() + " characters");
        // Before the pattern: no regular expression runs over a string longer than allowed.
        if (n.max_length && chars > *n.max_length)
            return fail(path, "is longer than " + n.max_length->dump() + " characters");
        if (n.pattern && !std::regex_search(s, *n.pattern_regex))
            return fail(path, "does not match " + n.pattern->dump());
    }
    return std::nullopt;
}

}  // namespace hugetune::model
