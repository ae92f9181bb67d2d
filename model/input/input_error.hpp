// The error of every reader of a document: what is wrong, where in the document, and which
// document, as data. Readers are told their document when they start and throw the whole error;
// only the command line knows which flag gave the document and prints it once (cli/cli.cpp).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace hugetune::model {

// The document a reader reads, as the user knows it.
struct InputSource {
    InputSource() = default;
    InputSource(std::string name_, std::string setting_ = {}, bool stored_ = false)
        : name(std::move(name_)), setting(std::move(setting_)), stored(stored_) {}

    std::string name;     // a file as given ("-": standard input); empty: unnamed
    std::string setting;  // the engine's name of the setting that gave it ("input", "report")
    // Data hugetune stored itself (a fleet database's runs): its problems are failures, not
    // usage errors.
    bool stored = false;

    // A part of this document, named after it ("SKU k: run r of host h").
    InputSource part(const std::string& part_name) const {
        return {name.empty() ? part_name : name + ": " + part_name, setting, stored};
    }
};

// A problem in the input, with the 1-based line it was found on when there is one. what() is
// the problem alone ("points[2].threads_per_node: must be at least 1; give ...").
class InputError : public std::runtime_error {
  public:
    InputError(InputSource source, std::optional<int> line, const std::string& message)
        : std::runtime_error(message), source_(std::move(source)), line_(line) {}
    const InputSource& source() const { return source_; }
    std::optional<int> line() const { return line_; }

  private:
    InputSource source_;
    std::optional<int> line_;
};

}  // namespace hugetune::model
