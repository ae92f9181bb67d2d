// User-facing errors: typed, thrown where the problem is found, caught once in main and
// printed as one line `hugetune: error: ...` with the exit code of their kind.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace hugetune {

// Documented in README.md and `hugetune --help`; scripts depend on these values.
enum class ExitCode : int {
    ok = 0,
    failure = 1,       // a runtime failure (I/O, a kernel write refused, a fit that cannot run)
    usage = 2,         // bad command, option, value or input file
    not_root = 3,      // the command changes the machine and needs root
    unsupported = 4,   // this kernel lacks what the command needs (e.g. no hugetlb)
    busy = 5,          // another hugetune holds the lock
    interrupted = 130  // stopped by SIGINT/SIGTERM/SIGHUP after restoring the machine
};

class Error : public std::runtime_error {
  public:
    Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
    ExitCode code() const { return code_; }

  private:
    ExitCode code_;
};

struct UsageError : Error {
    explicit UsageError(const std::string& m) : Error(ExitCode::usage, m) {}
};
// A value the caller chose that the engine refuses. `setting` is the engine's own name for it
// ("threads_per_node", "sample_mib_per_node", "bootloader", ...); only the command line knows
// which flag sets it and puts that flag in front of the message, so engine code never names a
// flag (cli/cli.cpp, setting_flag()).
struct SettingError : Error {
    SettingError(std::string setting_name, const std::string& m)
        : Error(ExitCode::usage, m), setting(std::move(setting_name)) {}
    std::string setting;
};

struct RuntimeError : Error {
    explicit RuntimeError(const std::string& m) : Error(ExitCode::failure, m) {}
};
struct NotRootError : Error {
    explicit NotRootError(const std::string& m) : Error(ExitCode::not_root, m) {}
};
struct UnsupportedError : Error {
    explicit UnsupportedError(const std::string& m) : Error(ExitCode::unsupported, m) {}
};
struct BusyError : Error {
    explicit BusyError(const std::string& m) : Error(ExitCode::busy, m) {}
};

}  // namespace hugetune
