// The options of the test programs (gen-fleet, false-camps): "--name value" pairs, a number
// checked against its range, and a usage error that exits 2 naming the problem. Test helpers,
// never shipped.
#pragma once

#include <cstdlib>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>

namespace hugetune::test {

struct ProgramUsage {
    const char* program;
    const char* usage;

    [[noreturn]] void fail(const std::string& problem) const {
        std::cerr << program << ": error: " << problem << "\n" << usage << "\n";
        std::exit(2);
    }

    // Every "--name value" pair of the command line.
    std::map<std::string, std::string> options(int argc, char** argv) const {
        std::map<std::string, std::string> given;
        for (int i = 1; i < argc; i += 2) {
            const std::string option = argv[i];
            if (i + 1 >= argc)
                fail(option + " needs a value");
            given[option] = argv[i + 1];
        }
        return given;
    }

    double number(const std::string& option, const std::string& text, double min,
                  double max) const {
        std::size_t end = 0;
        double value = 0;
        try {
            value = std::stod(text, &end);
        } catch (const std::exception&) {
            end = 0;
        }
        if (end != text.size() || !(value >= min && value <= max))
            fail(option + " '" + text + "': give a number from " + std::to_string(min) + " to " +
                 std::to_string(max));
        return value;
    }
};

}  // namespace hugetune::test
