#!/usr/bin/env bash
# Runs every boot lab case (tests/vm/cases/*.sh) of the binary's architecture against one
# hugetune binary: fetches the kernel once, builds the initramfs, prints each case's result and
# wall time and the total.
#
#   tests/vm/run-all.sh <hugetune binary> [case name...]
# The guests have the binary's architecture (amd64 or arm64, from its ELF header); without case
# names it runs the cases whose "# vmlab-arch:" line names it (amd64 when a case has none).
# Exit 0 when every case passed, 1 when one failed, 77 when the lab cannot run here (no kernel,
# no QEMU): then it says why, and never reports a pass.
set -uo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 <hugetune binary> [case name...]" >&2
    exit 2
fi
binary=$(realpath "$1")
shift
# Cases at a time (below, where they start).
jobs=${VMLAB_JOBS:-2}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || {
    echo "vmlab: error: VMLAB_JOBS is '$jobs'; give a whole number from 1" >&2
    exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
started=$SECONDS
# shellcheck source=lib/arch.bash
source "$here/lib/arch.bash"
VMLAB_ARCH=$(vmlab_elf_arch "$binary") || {
    echo "vmlab: error: $binary is no amd64 or arm64 ELF binary" >&2
    exit 2
}
export VMLAB_ARCH
# vmlab_choose_accel, and the EXIT trap that stops the accelerator's probe guest.
# shellcheck source=lib/vm.bash
source "$here/lib/vm.bash"

command -v "$vmlab_qemu" >/dev/null || {
    echo "vmlab: skip: $vmlab_qemu not found; install $vmlab_qemu_package" >&2
    exit 77
}
kernel_dir=$("$here/fetch-kernel.sh" "$vmlab_arch")
status=$?
((status == 0)) || exit "$status"
export VMLAB_KERNEL_DIR=$kernel_dir
vmlab_set_busybox "$kernel_dir"
# Decided once for the run, before any case: the cases take the exported choice.
vmlab_kernel=$kernel_dir/vmlinuz
vmlab_choose_accel
echo "vmlab: accelerator $vmlab_accel_name: $vmlab_accel_why"
export VMLAB_WORK=${VMLAB_WORK:-$(mktemp -d /tmp/vmlab.XXXXXX)}
mkdir -p "$VMLAB_WORK"
export VMLAB_INITRD=$VMLAB_WORK/initramfs.cpio.gz VMLAB_HUGETUNE=$binary
VMLAB_BUSYBOX=$vmlab_busybox "$here/make-initramfs.sh" "$binary" "$VMLAB_INITRD" || exit 1

cases=()
if [[ $# -gt 0 ]]; then
    for name in "$@"; do cases+=("$here/cases/$name.sh"); done
else
    for case_script in "$here"/cases/*.sh; do
        [[ " $(vmlab_case_arches "$case_script") " == *" $vmlab_arch "* ]] && cases+=("$case_script")
    done
fi
echo "vmlab: kernel $(cat "$kernel_dir/version"), $vmlab_arch guests, accelerator $vmlab_accel_name, results in $VMLAB_WORK"

# VMLAB_JOBS cases at a time (default 2), each in a folder of its own under VMLAB_WORK; a case
# whose "# vmlab-alone:" line says why runs by itself once the others are done (fleet_boots: its
# guests already keep two CPUs busy, and under another case's load the emulator slows their boots
# until the answer refuses them as implausible, docs/measurements/vmtest-jobs-2026-12-06.txt).
# A case's lines are printed whole when it ends, so cases that run together do not mix.
failed=0 passed=0
declare -A name_of=() started_of=()
finish_case() {
    local pid=$1 rc=$2 name=${name_of[$1]} verdict
    case $rc in
    0) verdict=PASS; passed=$((passed + 1)) ;;
    77) verdict=SKIP ;;
    *) verdict=FAIL; failed=$((failed + 1)) ;;
    esac
    echo "vmlab: $verdict $name ($((SECONDS - started_of[$pid])) s)"
    [[ $verdict == PASS ]] && grep -v '^vmlab: ' "$VMLAB_WORK/$name.log" | sed 's/^/    /'
    [[ $verdict != PASS ]] && sed 's/^/    /' "$VMLAB_WORK/$name.log" | tail -n 40
    unset "name_of[$pid]" "started_of[$pid]"
}
# Waits for one running case to end and reports it.
wait_one() {
    local pid rc=0
    wait -n -p pid "${!name_of[@]}" || rc=$?
    finish_case "$pid" "$rc"
}
stop_cases() {
    local pid
    for pid in "${!name_of[@]}"; do kill -TERM "$pid" 2>/dev/null; done
}
# Stops the cases still running with the guests of lib/vm.bash's own traps, which these replace.
trap 'stop_cases; vmlab_stop_guests' EXIT
trap 'stop_cases; vmlab_stop_guests; exit 130' INT
trap 'stop_cases; vmlab_stop_guests; exit 143' TERM
# A case's own server, run as nobody, passes through this folder to the case's (x only: nobody
# lists it), as fleet_boots lets it through the case's folder.
chmod go+x "$VMLAB_WORK"
start_case() {
    local case_script=$1 name
    name=$(basename "$case_script" .sh)
    mkdir -p "$VMLAB_WORK/$name"
    VMLAB_WORK=$VMLAB_WORK/$name "$case_script" >"$VMLAB_WORK/$name.log" 2>&1 &
    name_of[$!]=$name
    started_of[$!]=$SECONDS
}
# A case whose "# vmlab-long:" line says why starts first, so that the short ones fill the other
# CPU beside it instead of leaving it to run last on its own.
alone=() long=() short=()
for case_script in "${cases[@]}"; do
    if grep -q '^# vmlab-alone:' "$case_script"; then
        alone+=("$case_script")
    elif grep -q '^# vmlab-long:' "$case_script"; then
        long+=("$case_script")
    else
        short+=("$case_script")
    fi
done
for case_script in "${long[@]}" "${short[@]}"; do
    while ((${#name_of[@]} >= jobs)); do wait_one; done
    start_case "$case_script"
done
for case_script in "${alone[@]}"; do
    while ((${#name_of[@]} > 0)); do wait_one; done
    start_case "$case_script"
done
while ((${#name_of[@]} > 0)); do wait_one; done
echo "vmlab: $passed passed, $failed failed, wall time $((SECONDS - started)) s"
((failed == 0)) || exit 1
((passed > 0)) || exit 77
