// User-facing errors of every layer: typed, thrown where the problem is found, caught once in
// main and printed as one line `hugetune: error: ...` with the exit code of their kind.
//
// Engine code never names a flag: only the command line knows which flag sets a setting
// (cli/setting_flags.cpp). A message that tells the user what to change names the setting
// (Flag) and the command line writes its flag there; text made outside an error (a note, a line
// of output, a document's sentence) words it with the caller's SettingWords.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hugetune {

// Documented in README.md and `hugetune --help`; scripts depend on these values.
enum class ExitCode : int {
    ok = 0,
    failure = 1,       // a runtime failure (I/O, a kernel write refused, a fit that cannot run)
    usage = 2,         // bad command, option, value or input file
    not_root = 3,      // the command changes the machine and needs root
    unsupported = 4,   // this kernel lacks what the command needs (e.g. no hugetlb)
    busy = 5,          // another hugetune holds the lock
    internal = 70,     // a bug in hugetune (a broken invariant, std::logic_error), never the input
    interrupted = 130  // stopped by SIGINT/SIGTERM/SIGHUP after restoring the machine
};

// A setting named in a text by the engine's name of it ("threads_per_node"), where the user
// reads the flag that sets it ("--threads").
struct Flag {
    std::string setting;
};

// How the caller's user sets each setting. Default: by the engine's name, which is what a text
// says when no command line words it (tests of the engine alone); the command line gives its
// flags (cli/setting_flags.cpp flag_words()).
class SettingWords {
  public:
    SettingWords() = default;
    explicit SettingWords(std::function<std::string(std::string_view setting)> word)
        : word_(std::move(word)) {}
    std::string operator()(std::string_view setting) const {
        return word_ ? word_(setting) : std::string(setting);
    }

  private:
    std::function<std::string(std::string_view)> word_;
};

// A text with the settings it names kept apart until it is worded. Built with +:
// `"... leave " + Flag{"hugetlb_free_vmemmap"} + " out"`.
class Message {
  public:
    Message() = default;
    Message(std::string text) { append(std::move(text), {}); }
    Message(const char* text) : Message(std::string(text)) {}
    Message(Flag flag) { append({}, std::move(flag.setting)); }

    // The text with each setting as `words` says it.
    std::string text(const SettingWords& words = {}) const;
    bool empty() const { return parts_.empty(); }

    Message& operator+=(const Message& more) {
        for (const auto& part : more.parts_)
            append(part.text, part.setting);
        return *this;
    }

  private:
    void append(std::string text, std::string setting);
    struct Part {
        std::string text;
        std::string setting;  // named after the text; empty: none
    };
    std::vector<Part> parts_;
};

inline Message operator+(Message message, const Message& more) {
    message += more;
    return message;
}

// what() is the message with the settings by their engine names; the command line prints
// message() with its flags.
class Error : public std::runtime_error {
  public:
    Error(ExitCode code, const Message& message)
        : std::runtime_error(message.text()), code_(code), message_(message) {}
    ExitCode code() const { return code_; }
    const Message& message() const { return message_; }

  private:
    ExitCode code_;
    Message message_;
};

struct UsageError : Error {
    explicit UsageError(const Message& m) : Error(ExitCode::usage, m) {}
};
// A value the caller chose that the engine refuses. `setting` is the engine's own name for it
// ("threads_per_node", "sample_mib_per_node", "bootloader", ...); only the command line knows
// which flag sets it and puts that flag in front of the message (cli/cli.cpp, setting_flag()).
struct SettingError : Error {
    SettingError(std::string setting_name, const Message& m)
        : Error(ExitCode::usage, m), setting(std::move(setting_name)) {}
    std::string setting;
};

struct RuntimeError : Error {
    explicit RuntimeError(const Message& m) : Error(ExitCode::failure, m) {}
};
struct NotRootError : Error {
    explicit NotRootError(const Message& m) : Error(ExitCode::not_root, m) {}
};
struct UnsupportedError : Error {
    explicit UnsupportedError(const Message& m) : Error(ExitCode::unsupported, m) {}
};
struct BusyError : Error {
    explicit BusyError(const Message& m) : Error(ExitCode::busy, m) {}
};

}  // namespace hugetune
