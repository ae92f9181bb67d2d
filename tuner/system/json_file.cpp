#include "tuner/system/json_file.hpp"

#include <fstream>
#include <sstream>

#include "model/text.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune {
namespace fs = std::filesystem;

nlohmann::json parse_json_text(const std::string& name, const std::string& text,
                               const nlohmann::json::parser_callback_t& callback) {
    try {
        return nlohmann::json::parse(text, callback);
    } catch (const nlohmann::json::parse_error& e) {
        std::size_t offset = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i < offset; ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        // The parser's own words after its "[json.exception...] parse error at ...: " prefix.
        const std::string what = e.what();
        const auto detail = what.find("syntax error");
        throw UsageError(name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                         ": not valid JSON (" +
                         printable_text(detail == std::string::npos ? what : what.substr(detail)) +
                         "); give a file written by hugetune");
    }
}

nlohmann::json read_json_file(const fs::path& file) {
    std::string name = file.string();
    std::error_code ec;
    if (fs::is_directory(file, ec))
        throw UsageError(name + ": is a directory; give a JSON file");
    if (!fs::exists(file, ec))
        throw UsageError(name + ": no such file");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw UsageError(name + ": cannot be read; check its permissions");
    std::ostringstream buf;
    buf << in.rdbuf();
    std::string text = buf.str();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw UsageError(name + ": the file is empty; give a JSON document");
    return parse_json_text(name, text);
}

}  // namespace hugetune
