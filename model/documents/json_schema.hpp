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

namespace hugetune::model {

class JsonSchema {
  public:
    explicit JsonSchema(nlohmann::json schema);
    // Every keyword it reads, the annotations it passes over included.
    static const std::set<std::string>& keywords();
    // The first problem as "PATH: what is wrong" (PATH a JSON pointer, "/" for the root), or
    // nothing when `doc` is valid.
    std::optional<std::string> problem(const nlohmann::json& doc) const;

  private:
    std::optional<std::string> check(const nlohmann::json& schema, const nlohmann::json& doc,
                                     const std::string& path) const;
    std::optional<std::string> check_object(const nlohmann::json& schema, const nlohmann::json& doc,
                                            const std::string& path) const;
    std::optional<std::string> check_value(const nlohmann::json& schema, const nlohmann::json& doc,
                                           const std::string& path) const;
    const std::regex& regex(const std::string& pattern) const;

    nlohmann::json schema_;
    mutable std::map<std::string, std::regex> regexes_;
};

}  // namespace hugetune::model
