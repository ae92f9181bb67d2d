// Runs an external program from an argument vector (never through a shell).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune {

struct ProcessResult {
    int exit_code = -1;  // -1 when the program could not be started; 128+N when killed by N
    std::string out;     // standard output
    std::string err;     // standard error
};

// argv[0] is looked up on PATH. Standard input is /dev/null.
ProcessResult run_program(const std::vector<std::string>& argv);
// The same with standard input read from `input_fd` (a file the caller opened, such as a tree's
// compressed kernel configuration for `gzip -dc`), which stays the caller's.
ProcessResult run_program_reading(const std::vector<std::string>& argv, int input_fd);

// The same, with standard output handed to `on_output` piece by piece as it comes, not kept in
// the result: for output of any size.
ProcessResult run_program(const std::vector<std::string>& argv,
                          const std::function<void(std::string_view)>& on_output);

// Whether argv0 would be found on PATH (or is an executable path).
bool program_exists(const std::string& argv0);

}  // namespace hugetune
