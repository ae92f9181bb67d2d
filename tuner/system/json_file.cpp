#include "tuner/system/json_file.hpp"

#include <fstream>
#include <sstream>

#include "model/errors.hpp"
#include "model/input/json_text.hpp"
#include "model/text.hpp"

namespace hugetune {
namespace fs = std::filesystem;

nlohmann::json parse_json_text(const std::string& name, const std::string& text,
                               const nlohmann::json::parser_callback_t& callback) {
    try {
        return model::parse_json_document(text, callback);
    } catch (const model::JsonTextError& e) {
        std::string where;
        if (e.byte() > 0) {
            std::size_t offset = std::min<std::size_t>(e.byte() - 1, text.size());
            std::size_t line = 1, column = 1;
            for (std::size_t i = 0; i < offset; ++i) {
                if (text[i] == '\n') {
                    ++line;
                    column = 1;
                } else {
                    ++column;
                }
            }
            where = ":" + std::to_string(line) + ":" + std::to_string(column);
        }
        throw UsageError(name + where + ": not valid JSON (" + printable_text(e.what()) +
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
