// Which flag sets each engine setting. Engine code throws SettingError with its own name of the
// setting, names the setting that gave a document in model::InputError's source and a setting
// in a message as a Flag, and never names a flag; this table is the one place that joins the
// two.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/errors.hpp"
#include "model/input/input_error.hpp"

namespace hugetune::cli {

struct SettingFlag {
    std::string_view setting;  // SettingError::setting
    std::string_view flag;     // as the user types it; two flags for one setting read "--a/--b"
    // The engine's messages for this setting start with the value refused ("FILE: problem",
    // "kernel-cmdline: problem"), so the flag is followed by a space, not a colon.
    bool message_starts_with_value = false;
};

const std::vector<SettingFlag>& setting_flags();

std::optional<SettingFlag> setting_flag(std::string_view setting);

// The error line's text after "hugetune: error: ": "--flag: message", or "--flag VALUE: problem"
// for settings whose messages start with the value. A setting without a flag (a test fails for
// it) keeps its engine name in front rather than losing it.
std::string setting_error_text(const SettingError& error);

// The same for a problem in a document: "--flag FILE, line N: problem", each part there when
// the error has it ("--sku: problem", "FILE: json.path: problem; fix").
std::string input_error_text(const model::InputError& error);

// Each setting as the user sets it: its flag; a setting without a flag by its engine name.
const SettingWords& flag_words();

// The error line's text of any Error: the above for a SettingError or an InputError, else its
// message with the flags of the settings it names.
std::string error_text(const Error& error);

}  // namespace hugetune::cli
