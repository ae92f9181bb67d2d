// `hugetune apply` and `hugetune rollback`: edit the boot loader configuration of a target
// (the machine, or a tree under --root), keep a ledger, and rebuild the boot entries.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "tuner/boot/regenerate.hpp"

namespace hugetune::bootloader {

struct TargetOptions {
    std::filesystem::path root = "/";
    std::optional<Bootloader> bootloader;  // nothing: decide from what exists under root
    bool dry_run = false;
    bool regenerate = true;         // false: --no-regenerate, print the commands instead
    bool force_regenerate = false;  // --regenerate: run the tools even when root is not "/"
};

struct ApplyRequest {
    TargetOptions target;
    std::string value;                          // validated: 1..4096
    std::optional<std::string> kernel_release;  // of the measured machine (the report)
};

// Output for the user: results on `out`, notes and warnings on `err`. Throws the typed
// errors of errors.hpp. Returns the exit code.
int apply_boot_parameter(const ApplyRequest& request, std::ostream& out, std::ostream& err);
int rollback_boot_parameter(const TargetOptions& target, std::ostream& out, std::ostream& err);

}  // namespace hugetune::bootloader
