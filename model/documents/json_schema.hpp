// A JSON Schema validator of exactly the keywords the shipped schemas use (Debian 12 has no
// C++ one): type, required, properties, additionalProperties, const, enum, minimum, maximum,
// exclusiveMinimum, minItems, minLength, pattern, items, oneOf and $ref into $defs. `format`
// is an annotation, as python3-jsonschema treats it by default; `description`, `title`, `$id`
// and `$schema` say nothing about the document. Any other keyword throws std::logic_error:
// a schema that outgrows the validator must fail its tests, not pass documents unchecked.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace hugetune::model {

class JsonSchema {
  public:
    explicit JsonSchema(nlohmann::json schema);
    // It keeps pointers into its own schema.
    JsonSchema(const JsonSchema&) = delete;
    JsonSchema& operator=(const JsonSchema&) = delete;
    // Every keyword it reads, the annotations it passes over included.
    static const std::set<std::string>& keywords();
    // The first problem as "PATH: what is wrong" (PATH a JSON pointer, "/" for the root), or
    // nothing when `doc` is valid.
    std::optional<std::string> problem(const nlohmann::json& doc) const;

  private:
    // Where in the document a value is, as links up to the root: a check that passes builds
    // no text; a problem's JSON pointer is written only when there is one.
    struct Path {
        const Path* up = nullptr;
        const std::string* key = nullptr;  // a member's name, else `index`
        std::size_t index = 0;
    };
    // One subschema's keywords, looked up once, when the validator is made, and kept (the
    // schema is never changed): a report has thousands of values, each checked against a few
    // subschemas. Made whole in the constructor, it is only read afterwards.
    struct Node {
        std::optional<bool> boolean;          // `true` / `false` as a whole schema
        const nlohmann::json* ref = nullptr;  // the $defs entry $ref names
        const nlohmann::json* type = nullptr;
        unsigned types = 0;  // `type` as a set of kType* bits
        const nlohmann::json *one_of = nullptr, *required = nullptr, *properties = nullptr,
                             *additional = nullptr, *min_items = nullptr, *items = nullptr,
                             *constant = nullptr, *enumeration = nullptr, *minimum = nullptr,
                             *maximum = nullptr, *exclusive_minimum = nullptr,
                             *min_length = nullptr, *max_length = nullptr, *pattern = nullptr;
        const std::regex* pattern_regex = nullptr;
        std::vector<std::string> required_sorted;  // `required`'s names in the maps' order
    };
    const Node& node(const nlohmann::json& schema) const;
    const Node& add_node(const nlohmann::json& schema);
    void add_nodes(const nlohmann::json& schema);
    std::optional<std::string> check(const nlohmann::json& schema, const nlohmann::json& doc,
                                     const Path& path) const;
    std::optional<std::string> check_object(const Node& n, const nlohmann::json& doc,
                                            const Path& path) const;
    std::optional<std::string> check_value(const Node& n, const nlohmann::json& doc,
                                           const Path& path) const;
    const std::regex& regex(const std::string& pattern);

    nlohmann::json schema_;
    std::map<std::string, std::regex> regexes_;
    std::unordered_map<const nlohmann::json*, Node> nodes_;
};

}  // namespace hugetune::model
