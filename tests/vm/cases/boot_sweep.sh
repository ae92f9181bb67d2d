#!/usr/bin/env bash
# vmlab-long: four guests one after another, a sweep of four boots among them (tests/vm/README.md)
# `hugetune boot-sweep` on a real kernel: a guest whose init plays systemd's part (runs
# `continue` at every boot) kexecs into one boot per thread count, records each boot's own
# "allocation took" line, and ends on its original command line; the state and the kexec image
# live on a virtio disk. Then the same with planted failures: the first step's allocation line
# flooded out of the kernel log, which must end the sweep, aborted, on the original command line;
# a person who kexecs the first step's boot into another command line, whose boot must end the
# sweep where it is, with no kexec; and a locked-down kernel, which plan and start must refuse
# before any kexec, as they must once kexec_load_disabled is set.
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare
command -v kexec >/dev/null || vmlab_skip "kexec not found; install kexec-tools"
command -v mkfs.ext4 >/dev/null || vmlab_skip "mkfs.ext4 not found; install e2fsprogs"
kernel_dir=$(dirname "$vmlab_kernel")
[[ -s "$kernel_dir/virtio_blk.ko" ]] || vmlab_skip "no virtio_blk.ko beside the kernel in $kernel_dir"

# The lab's initramfs plus the disk driver: the guest boots it and kexecs into it again.
initrd=$VMLAB_WORK/boot-sweep.initrd
overlay=$VMLAB_WORK/boot-sweep.overlay
mkdir -p "$overlay/vmlab"
cp "$kernel_dir/virtio_blk.ko" "$overlay/vmlab/"
{
    cat "$VMLAB_INITRD"
    (cd "$overlay" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) | gzip -1
} >"$initrd"

# A fresh ext4 disk holding the kernel and the initrd to kexec.
make_disk() {
    local root=$VMLAB_WORK/$1.disk-root
    mkdir -p "$root/boot"
    cp "$vmlab_kernel" "$root/boot/vmlinuz"
    cp "$initrd" "$root/boot/initrd.img"
    truncate -s 128M "$VMLAB_WORK/$1.img"
    mkfs.ext4 -q -F -d "$root" "$VMLAB_WORK/$1.img"
}

# Every boot's command line, one per line, in boot order.
boots() { vm_section "$1" cmdline; }

args="init_on_alloc=0 printk.devkmsg=on vmlab.threads=1,2 vmlab.pages=128"
make_disk sweep
# Every step boots init_on_alloc=1 (the original line has 0) with HVO on: each boot must say it
# ran with them, in its log and its sysctl.
vm_boot boot-sweep boot-sweep "$args vmlab.ioa=1 vmlab.hvo=on" --smp 2 --mem 1024 --initrd "$initrd" \
    --disk "$VMLAB_WORK/sweep.img" --timeout 600 || vmlab_fail "the guest did not finish"
vm_expect_rc boot-sweep plan 0
mapfile -t cmdlines < <(boots boot-sweep)
[[ ${#cmdlines[@]} -eq 4 ]] ||
    vmlab_fail "boot-sweep: expected 4 boots (start, 2 steps, back), saw ${#cmdlines[@]}: $(printf '%s | ' "${cmdlines[@]}")"
[[ "${cmdlines[3]}" == "${cmdlines[0]}" ]] ||
    vmlab_fail "boot-sweep: the last boot is not on the original command line: ${cmdlines[3]}"
[[ "${cmdlines[1]}" == *"hugepage_alloc_threads=1"* && "${cmdlines[1]}" == *"hugepages=128"* &&
    "${cmdlines[1]}" == *"init_on_alloc=1 hugetlb_free_vmemmap=on" && "${cmdlines[1]}" != *"init_on_alloc=0"* ]] ||
    vmlab_fail "boot-sweep: the first step booted ${cmdlines[1]}"
[[ "${cmdlines[2]}" == *"hugepage_alloc_threads=2"* ]] ||
    vmlab_fail "boot-sweep: the second step booted ${cmdlines[2]}"
vm_expect_rc boot-sweep continue 0
vm_check_json boot-sweep status <<'PY'
result = doc["result"]
assert result["phase"] == "done" and result["complete"] is True, result
steps = result["steps"]
assert [s["threads"] for s in steps] == [1, 2], steps
assert all(s["logged_threads"] == s["threads"] and s["milliseconds"] >= 0 for s in steps), steps
assert all(s["init_on_alloc"] is True and s["logged_init_on_alloc"] is True for s in steps), steps
assert all(s["hugetlb_free_vmemmap"] is True and s["hvo"] is True for s in steps), steps
assert len({s["boot_id"] for s in steps}) == 2, steps
assert result["best"]["threads"] in (1, 2), result["best"]
assert result["best"]["cmdline"] == "hugepage_alloc_threads=%d" % result["best"]["threads"], result["best"]
PY
echo "steps (threads: ms): $(vm_section boot-sweep status | python3 -c 'import json,sys; r=json.load(sys.stdin)["result"]; print(", ".join("%d: %d ms" % (s["threads"], s["milliseconds"]) for s in r["steps"]), "best", r["best"]["threads"])')"
echo "boots: $(printf '%s | ' "${cmdlines[@]}")"

make_disk planted
vm_boot boot-sweep-planted boot-sweep "$args vmlab.plant=no-line" --smp 2 --mem 1024 \
    --initrd "$initrd" --disk "$VMLAB_WORK/planted.img" --timeout 600 ||
    vmlab_fail "the planted guest did not finish"
mapfile -t cmdlines < <(boots boot-sweep-planted)
[[ ${#cmdlines[@]} -eq 3 ]] ||
    vmlab_fail "planted: expected 3 boots (start, the failed step, back), saw ${#cmdlines[@]}: $(printf '%s | ' "${cmdlines[@]}")"
[[ "${cmdlines[2]}" == "${cmdlines[0]}" ]] ||
    vmlab_fail "planted: the last boot is not on the original command line: ${cmdlines[2]}"
vm_check_json boot-sweep-planted status <<'PY'
result = doc["result"]
assert result["phase"] == "aborted" and result["complete"] is False, result
assert all(s["milliseconds"] is None for s in result["steps"]), result["steps"]
assert "allocation" in result["abort_reason"], result["abort_reason"]
PY
echo "planted: $(vm_section boot-sweep-planted status | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["abort_reason"])')"

# A person takes over at the first step's boot (the original command line plus nomodeset): the
# sweep ends in that boot, which is left as it is.
make_disk human
vm_boot boot-sweep-human boot-sweep "$args vmlab.plant=human" --smp 2 --mem 1024 \
    --initrd "$initrd" --disk "$VMLAB_WORK/human.img" --timeout 600 ||
    vmlab_fail "the guest taken over by a person did not finish"
mapfile -t cmdlines < <(boots boot-sweep-human)
[[ ${#cmdlines[@]} -eq 3 ]] ||
    vmlab_fail "human: expected 3 boots (start, the first step, the person's), saw ${#cmdlines[@]}: $(printf '%s | ' "${cmdlines[@]}")"
[[ "${cmdlines[2]}" == "${cmdlines[0]} nomodeset" ]] ||
    vmlab_fail "human: the last boot is not the person's: ${cmdlines[2]}"
vm_expect_rc boot-sweep-human continue 0
vm_section boot-sweep-human continue.stderr | grep -F "left as it is (no kexec, no reboot)" >/dev/null ||
    vmlab_fail "human: continue did not say it leaves the boot as it is: $(vm_section boot-sweep-human continue.stderr)"
vm_check_json boot-sweep-human status <<'PY'
result = doc["result"]
assert result["phase"] == "aborted" and result["complete"] is False, result
assert "command line is not step 1 of 2" in result["abort_reason"], result["abort_reason"]
PY
echo "human: $(vm_section boot-sweep-human status | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["abort_reason"])')"

# A locked-down kernel refuses the unsigned kexec load every step makes: plan and start say so
# before anything is done, and so they do with kexec switched off.
vm_boot boot-sweep-lockdown boot-sweep "$args vmlab.plant=lockdown lockdown=integrity" --smp 2 \
    --mem 1024 --timeout 300 || vmlab_fail "the locked-down guest did not finish"
if ! vm_section boot-sweep-lockdown lockdown | grep -F "[integrity]" >/dev/null; then
    echo "lockdown: SKIPPED: this kernel did not lock down with lockdown=integrity ($(vm_section boot-sweep-lockdown lockdown))"
else
    vm_expect_rc boot-sweep-lockdown plan 4
    vm_section boot-sweep-lockdown plan.stderr | grep -F "the kernel is locked down (integrity" >/dev/null ||
        vmlab_fail "lockdown: plan did not name the lockdown: $(vm_section boot-sweep-lockdown plan.stderr)"
    vm_expect_rc boot-sweep-lockdown start 4
    [[ -z $(vm_section boot-sweep-lockdown state) ]] ||
        vmlab_fail "lockdown: start wrote $(vm_section boot-sweep-lockdown state)"
    echo "lockdown: $(vm_section boot-sweep-lockdown plan.stderr)"
fi
vm_expect_rc boot-sweep-lockdown plan-kexec-off 4
vm_section boot-sweep-lockdown plan-kexec-off.stderr | grep -E "kexec is switched off|locked down" >/dev/null ||
    vmlab_fail "kexec off: plan did not refuse it: $(vm_section boot-sweep-lockdown plan-kexec-off.stderr)"
mapfile -t cmdlines < <(boots boot-sweep-lockdown)
[[ ${#cmdlines[@]} -eq 1 ]] || vmlab_fail "lockdown: the guest booted ${#cmdlines[@]} times"
