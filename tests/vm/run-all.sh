#!/usr/bin/env bash
# Runs every boot lab case (tests/vm/cases/*.sh) against one hugetune binary: fetches the kernel
# once, builds the initramfs, prints each case's result and wall time and the total.
#
#   tests/vm/run-all.sh <hugetune binary> [case name...]
# Exit 0 when every case passed, 1 when one failed, 77 when the lab cannot run here (no kernel,
# no QEMU): then it says why, and never reports a pass.
set -uo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 <hugetune binary> [case name...]" >&2
    exit 2
fi
binary=$(realpath "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
started=$SECONDS
# vmlab_choose_accel, and the EXIT trap that stops the accelerator's probe guest.
# shellcheck source=lib/vm.bash
source "$here/lib/vm.bash"

command -v qemu-system-x86_64 >/dev/null || {
    echo "vmlab: skip: qemu-system-x86_64 not found; install qemu-system-x86" >&2
    exit 77
}
kernel_dir=$("$here/fetch-kernel.sh")
status=$?
((status == 0)) || exit "$status"
export VMLAB_KERNEL_DIR=$kernel_dir
# Decided once for the run, before any case: the cases take the exported choice.
vmlab_kernel=$kernel_dir/vmlinuz
vmlab_choose_accel
echo "vmlab: accelerator $vmlab_accel_name: $vmlab_accel_why"
export VMLAB_WORK=${VMLAB_WORK:-$(mktemp -d /tmp/vmlab.XXXXXX)}
mkdir -p "$VMLAB_WORK"
export VMLAB_INITRD=$VMLAB_WORK/initramfs.cpio.gz VMLAB_HUGETUNE=$binary
"$here/make-initramfs.sh" "$binary" "$VMLAB_INITRD" || exit 1

if [[ $# -gt 0 ]]; then
    cases=()
    for name in "$@"; do cases+=("$here/cases/$name.sh"); done
else
    cases=("$here"/cases/*.sh)
fi
echo "vmlab: kernel $(cat "$kernel_dir/version"), accelerator $vmlab_accel_name, results in $VMLAB_WORK"

failed=0 passed=0
for case_script in "${cases[@]}"; do
    name=$(basename "$case_script" .sh)
    case_started=$SECONDS
    "$case_script" >"$VMLAB_WORK/$name.log" 2>&1
    rc=$?
    case $rc in
    0) verdict=PASS; passed=$((passed + 1)) ;;
    77) verdict=SKIP ;;
    *) verdict=FAIL; failed=$((failed + 1)) ;;
    esac
    echo "vmlab: $verdict $name ($((SECONDS - case_started)) s)"
    [[ $verdict == PASS ]] && grep -v '^vmlab: ' "$VMLAB_WORK/$name.log" | sed 's/^/    /'
    [[ $verdict != PASS ]] && sed 's/^/    /' "$VMLAB_WORK/$name.log" | tail -n 40
done
echo "vmlab: $passed passed, $failed failed, wall time $((SECONDS - started)) s"
((failed == 0)) || exit 1
((passed > 0)) || exit 77
