// Whether this process may change the machine: huge page pools, boot files, units and kexec all
// need root. The one place that asks the kernel who we are.
#pragma once

#include <string>

namespace hugetune {

// Whether this process runs as root (effective uid 0).
bool running_as_root();

// Throws NotRootError (exit code 3) with `refusal` unless running_as_root(). The refusal says
// what needs root and how to run it instead ("...; run it with sudo, or use --dry-run").
void require_root(const std::string& refusal);

}  // namespace hugetune
