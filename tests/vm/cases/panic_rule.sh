#!/usr/bin/env bash
# The lab's rule for booting a guest again, without QEMU: vm_panic_before_init on consoles kept in
# tests/vm/fixtures (a real int3 Oops of the emulator, trimmed), and vm_boot's loop around a
# stand-in for one boot that panics, writes to its disk, then succeeds.
source "$(dirname "$0")/../lib/vm.bash"
fixtures=$vmlab_dir/fixtures
VMLAB_WORK=${VMLAB_WORK:-$(mktemp -d)}
mkdir -p "$VMLAB_WORK"

expect_retry() {
    local why
    why=$(vm_panic_before_init "$fixtures/$1") || vmlab_fail "$1: not taken for a boot that died before init"
    [[ "$why" == *"$2"* ]] || vmlab_fail "$1: the reason '$why' does not say '$2'"
    echo "$1: $why"
}
expect_no_retry() {
    vm_panic_before_init "$fixtures/$1" >/dev/null && vmlab_fail "$1: $2, yet taken for a boot that died before init"
    echo "$1: not booted again ($2)"
}

expect_retry console-panic-before-first-init.txt "before init started (Oops: int3"
expect_retry console-kexec-panic-before-init.txt "kernel text at 0xffffffff8b200000, the last init ran on 0xffffffff9c000000"
expect_retry console-kexec-panic-no-offset.txt "its log restarted after the last init line"
expect_no_retry console-panic-after-init.txt "the panicking kernel had run init"
# Without KASLR the text addresses say nothing, but a log that starts again below the last init
# line's time is a later kernel's; one that goes on past it cannot be told apart.
expect_retry console-panic-nokaslr.txt "its log restarted after the last init line"
expect_no_retry console-panic-nokaslr-later.txt "without KASLR the kernels cannot be told apart"
expect_no_retry console-clean.txt "no panic"

# A guest that prints nothing: vm_boot_once itself, around a stand-in for QEMU that only waits,
# stops it once VMLAB_LIFE_S has passed with both serial ports empty, with status 125.
fake_qemu=$VMLAB_WORK/silent-qemu
printf '#!/bin/sh\nexec sleep 60\n' >"$fake_qemu"
chmod +x "$fake_qemu"
status=0
(vmlab_qemu=$fake_qemu vmlab_kernel=/dev/null VMLAB_INITRD=/dev/null VMLAB_LIFE_S=1 \
    vm_boot_once silent none "" 2>"$VMLAB_WORK/silent.stderr") || status=$?
((status == 125)) || vmlab_fail "a silent guest ended with status $status, not 125: $(cat "$VMLAB_WORK/silent.stderr")"
grep -q "guest silent printed nothing in 1s; stopping it" "$VMLAB_WORK/silent.stderr" ||
    vmlab_fail "vm_boot_once did not say why it stopped the silent guest: $(cat "$VMLAB_WORK/silent.stderr")"
echo "vm_boot_once: a guest silent for VMLAB_LIFE_S stopped with status 125"

# vm_boot around a stand-in boot: the first attempt changes the disk and panics as a kexec'd
# kernel would; the second must find the disk as it was and succeeds.
disk=$VMLAB_WORK/panic-rule.img
echo pristine >"$disk"
attempts=0
# shellcheck disable=SC2317 # called by vm_boot
vm_boot_once() {
    attempts=$((attempts + 1))
    [[ "$(cat "$disk")" == pristine ]] || { echo "attempt $attempts found the disk changed" >&2; return 1; }
    echo "changed by attempt $attempts" >"$disk"
    if ((attempts == 1)); then
        cp "$fixtures/console-kexec-panic-before-init.txt" "$VMLAB_WORK/$1.console"
        return 1
    fi
    cp "$fixtures/console-clean.txt" "$VMLAB_WORK/$1.console"
}
vm_boot panic-rule none "" --disk "$disk" 2>"$VMLAB_WORK/panic-rule.stderr" ||
    vmlab_fail "vm_boot did not succeed on the second attempt: $(cat "$VMLAB_WORK/panic-rule.stderr")"
((attempts == 2)) || vmlab_fail "vm_boot made $attempts attempts, expected 2"
[[ -s "$VMLAB_WORK/panic-rule.console.1" ]] || vmlab_fail "the first attempt's console was not kept"
[[ ! -e "$disk.pristine" ]] || vmlab_fail "vm_boot left its copy of the disk behind"
grep -q "attempt 2 of 3" "$VMLAB_WORK/panic-rule.stderr" || vmlab_fail "vm_boot did not say it boots again"

# A panic after init is never retried: one attempt, and its status comes back.
attempts=0
echo pristine >"$disk"
# shellcheck disable=SC2317 # called by vm_boot
vm_boot_once() {
    attempts=$((attempts + 1))
    cp "$fixtures/console-panic-after-init.txt" "$VMLAB_WORK/$1.console"
    return 1
}
vm_boot panic-after none "" --disk "$disk" 2>/dev/null && vmlab_fail "vm_boot passed a guest that panicked after init"
((attempts == 1)) || vmlab_fail "a panic after init was booted again ($attempts attempts)"

# A guest stopped for printing nothing (status 125) is booted again; the second attempt succeeds.
attempts=0
# shellcheck disable=SC2317 # called by vm_boot
vm_boot_once() {
    attempts=$((attempts + 1))
    if ((attempts == 1)); then
        : >"$VMLAB_WORK/$1.console"
        return 125
    fi
    cp "$fixtures/console-clean.txt" "$VMLAB_WORK/$1.console"
}
vm_boot silent-again none "" 2>"$VMLAB_WORK/silent-again.stderr" ||
    vmlab_fail "vm_boot did not boot a silent guest again: $(cat "$VMLAB_WORK/silent-again.stderr")"
((attempts == 2)) || vmlab_fail "vm_boot made $attempts attempts for a silent guest, expected 2"
grep -q "printed nothing, neither its kernel nor its init" "$VMLAB_WORK/silent-again.stderr" ||
    vmlab_fail "vm_boot did not say why it boots the silent guest again"
echo "vm_boot: a kexec'd kernel's panic before init booted again with the disk restored; a panic after init not; a silent guest booted again"
