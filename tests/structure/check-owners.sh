#!/usr/bin/env bash
# One fact, one owner: each of these is written in one file, and every other file asks it. A
# second copy is printed with the owner it should ask; exits 1 if any.
set -uo pipefail
root=${1:-$(dirname "$0")/../..}
cd "$root" || exit 2

# owner FILE PATTERN WHAT: PATTERN (extended grep) may match only in FILE and its header.
bad=0
owner() {
    local file=$1 pattern=$2 what=$3 hit
    while IFS= read -r hit; do
        [[ ${hit%%:*} == "$file" || ${hit%%:*} == "${file%.*}.hpp" ]] && continue
        echo "$hit: $what belongs to $file"
        bad=1
    done < <(git ls-files --cached --others --exclude-standard 'model/*.[ch]pp' 'reports/*.[ch]pp' \
        'fleet_db/*.[ch]pp' 'cli/*.[ch]pp' \
        'tuner/*.[ch]pp' | xargs grep -nE "$pattern" /dev/null)
}

owner tuner/kernel/kernel_files.cpp \
    '\.read(_line)?\("/proc/(cmdline|meminfo|sys/kernel/osrelease)"' \
    "reading the kernel's release, command line or meminfo"
owner tuner/kernel/kernel_files.cpp 'node[0-9"+ ()a-z._]*/meminfo"' "reading a node's meminfo"
owner tuner/kernel/kernel_files.cpp \
    '"/proc/(cpuinfo|config\.gz|sys/kernel/(random/boot_id|hostname|kexec_load_disabled)|sys/vm/hugetlb_optimize_vmemmap)"' \
    "reading the boot id, hostname, cpuinfo, HVO or the kernel's configuration"
owner tuner/kernel/kernel_files.cpp \
    '"/sys/(devices/system/cpu/online|hypervisor/type|kernel/security/lockdown|kernel/kexec_loaded)"|"/sys/class/dmi/id/|"/boot/config-' \
    "reading the online CPUs, the hypervisor, DMI, lockdown or kexec state"
owner tuner/system/file_lock.cpp '[^a-z_]flock\(' "taking a flock"
owner model/statistics.cpp '^(double|auto) median\(' "the median"
owner model/alloc_threads.hpp 'kMax[A-Za-z]*(Threads|Nodes)[A-Za-z]* = [0-9]|\{1, 4096\}' \
    "the bound on thread and node counts"
owner model/documents/verification.cpp '"(pool_predicted_ms|ratio_refused|expected_threads)"' \
    "the verification block's keys"
owner tuner/system/own_binary.cpp '"/proc/self/exe"|[^a-z_]statfs\(' \
    "reading the running binary or the file system type"
owner model/fit/scaling_fit.cpp 'sigma \* \(n - 1\)' "the scaling curve's formula"
owner model/boot_plausibility.cpp \
    '(kZeroingCeilingBytesPerSecondPerNode|kCoarsestJiffyMs|kMaxPlausibleRatio|kMinPlausibleRatio) = ' \
    "what a boot allocation can be (the zeroing ceiling, the jiffy, the ratio's range)"
owner tuner/kernel/kernel_log.cpp '(kMaxBootLogMessages|kMaxBootLogBytes|kMaxLogLineBytes) = ' \
    "the bounds on what is kept of a kernel log"
owner tuner/system/privilege.cpp 'geteuid\(\) *[!=]= *0' \
    "the root check (ask running_as_root or require_root)"
# A reader names its document when it starts (model/input/input_error.hpp) and throws the whole
# error; one catch turns it into the error line and exit code (cli current_error), so no caller
# adds a second prefix or another exit code.
owner cli/cli.cpp 'catch *\(.*InputError' "catching model::InputError (ask cli's current_error)"
# The boot configuration, its backups and ledger, and the boot sweep's files are written and
# removed only through Effects (tuner/system/effects.hpp), which --dry-run turns into the plan
# and --root keeps inside the tree: a write beside it is one a dry run would not show.
writes='write_file_atomically\(|remove_stale_temporaries\(|ofstream'
writes+='|(fs|filesystem)::(remove(_all)?|rename|create_directories?)\('
while IFS= read -r hit; do
    echo "$hit: a lasting file written beside Effects; ask tuner/system/effects.hpp"
    bad=1
done < <(git ls-files --cached --others --exclude-standard 'tuner/boot/*.[ch]pp' \
    'tuner/boot_sweep/*.[ch]pp' | xargs grep -nE "$writes" /dev/null)
exit "$bad"
