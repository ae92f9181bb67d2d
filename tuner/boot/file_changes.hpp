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

// Called with each file's backup (target path; empty for a file restored to its original
// bytes, which gets none): `intent` before the first byte of any file changes, `record` once
// every file is written. Either throws to undo the whole change.
using RecordChange = std::function<void(const std::vector<std::string>& backups)>;

// Chooses the backups, calls `intent`, writes `files` in order through `effects` (each backup,
// then the file; --dry-run shows each file's diff), then calls `record`. Prints what was written
// on `out` only once all of it succeeded. On failure throws an Error of the failed step's kind
// that names the file, says that everything was put back, or names each file that could not be
// and its backup.
void write_changes(const std::vector<PlannedFile>& files, const RecordChange& intent,
                   const RecordChange& record, Effects& effects, std::ostream& out);

// The ledger's intent for each planned file: its path, the backup to make, its bytes before and
// after.
std::vector<PendingWrite> pending_writes(const std::vector<PlannedFile>& files,
                                         const std::vector<std::string>& backups);

// Removes the temporary files a killed apply or rollback left beside the ledger's files. An
// apply killed while writing left its ledger with `pending` files: each is brought to the
// bytes the ledger records (its backup made first when missing), and the ledger is written
// without them, through `effects`. A file that holds neither its bytes from before nor after is
// refused, naming it and its backup, with the target's dry run as without; a dry run then only
// says on `err` that the completion is due. Returns whether one was found.
bool finish_interrupted_apply(const KernelFs& root, Effects& effects, const TargetOptions& target,
                              std::ostream& err);

}  // namespace hugetune::boot
