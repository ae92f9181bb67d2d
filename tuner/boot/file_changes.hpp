// Writing a boot change as one step: every planned file backed up and replaced, then the
// change recorded (the ledger). When any part fails, the files already written are put back
// and the backups made are removed, so that the ledger never names a change that did not
// happen and no backup is left of a file that was never written.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "tuner/boot/boot_change.hpp"

namespace hugetune::boot {

// Called once every file is written, with each file's backup (target path; empty for a file
// restored to its original bytes, which gets none). Throws to undo the whole change.
using RecordChange = std::function<void(const std::vector<std::string>& backups)>;

// Writes `files` in order, then calls `record`. Prints what was done on `out` only once all of
// it succeeded. On failure throws an Error of the failed step's kind that names the file, says
// that everything was put back, or names each file that could not be and its backup.
void write_changes(const std::vector<PlannedFile>& files, const RecordChange& record,
                   std::ostream& out);

}  // namespace hugetune::boot
