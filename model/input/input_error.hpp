// The error of every reader of a document: what is wrong, where in the document, and which
// document, as data. Readers are told their document when they start and throw the whole error;
// only the command line knows which flag gave the document and prints it once (cli/cli.cpp).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "model/errors.hpp"

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

// A problem in the input, with the 1-based line it was found on when there is one. The message
// is the problem alone ("points[2].threads_per_node: must be at least 1; give ..."). A document
// the user gave is a usage error; data hugetune stored itself, a failure.
class InputError : public Error {
  public:
    InputError(InputSource source, std::optional<int> line, const Message& message)
        : Error(source.stored ? ExitCode::failure : ExitCode::usage, message),
          source_(std::move(source)),
          line_(line) {}
    const InputSource& source() const { return source_; }
    std::optional<int> line() const { return line_; }

  private:
    InputSource source_;
    std::optional<int> line_;
};

}  // namespace hugetune::model
