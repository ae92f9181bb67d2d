#!/usr/bin/env bash
# One `hugetune boot-sweep` in a guest, for figures: the guest starts the sweep, kexecs into
# every step and returns to its original command line; the result is written to
# $VMLAB_WORK/boot-sweep-result.json and its summary printed. Compare it with a prediction by
# `hugetune fit --input SWEEP --boot-sweep $VMLAB_WORK/boot-sweep-result.json`.
#
#   tests/vm/boot-sweep-lab.sh <hugetune binary>
#   PAGES (512), THREADS (1,2), REPS (3), INIT_ON_ALLOC (1), MEM_MIB (1792), PREALLOC (1)
set -uo pipefail
binary=$(realpath "${1:?usage: $0 <hugetune binary>}")
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib/vm.bash"
VMLAB_WORK=${VMLAB_WORK:-$(mktemp -d /tmp/vmlab-boot-sweep.XXXXXX)}
mkdir -p "$VMLAB_WORK"
export VMLAB_INITRD=$VMLAB_WORK/initramfs.cpio.gz
"$here/make-initramfs.sh" "$binary" "$VMLAB_INITRD" || exit 1
vmlab_prepare
kernel_dir=$(dirname "$vmlab_kernel")
initrd=$VMLAB_WORK/boot-sweep.initrd
mkdir -p "$VMLAB_WORK/overlay/vmlab" "$VMLAB_WORK/disk-root/boot"
cp "$kernel_dir/virtio_blk.ko" "$VMLAB_WORK/overlay/vmlab/"
{
    cat "$VMLAB_INITRD"
    (cd "$VMLAB_WORK/overlay" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) | gzip -1
} >"$initrd"
cp "$vmlab_kernel" "$VMLAB_WORK/disk-root/boot/vmlinuz"
cp "$initrd" "$VMLAB_WORK/disk-root/boot/initrd.img"
truncate -s 128M "$VMLAB_WORK/disk.img"
mkfs.ext4 -q -F -d "$VMLAB_WORK/disk-root" "$VMLAB_WORK/disk.img"
flag=()
[[ ${PREALLOC:-1} == 1 ]] && flag=(--prealloc)
args="init_on_alloc=${INIT_ON_ALLOC:-1} vmlab.threads=${THREADS:-1,2} vmlab.pages=${PAGES:-512} vmlab.reps=${REPS:-3}"
echo "boot-sweep lab: $(date -u +%F), kernel $vmlab_kernel_release, $vmlab_accel_name, -smp 2, ${MEM_MIB:-1792} MiB${flag:+, prealloc}: $args"
vm_boot boot-sweep boot-sweep "$args" --smp 2 --mem "${MEM_MIB:-1792}" "${flag[@]}" --initrd "$initrd" \
    --disk "$VMLAB_WORK/disk.img" --timeout 1200 || vmlab_fail "the guest did not finish"
vm_section boot-sweep status | python3 -c 'import json, sys
doc = json.load(sys.stdin)
json.dump(doc["result"], open(sys.argv[1], "w"), indent=2)
print(doc["result"]["summary"])' "$VMLAB_WORK/boot-sweep-result.json" || vmlab_fail "no result in the guest's status"
echo "result: $VMLAB_WORK/boot-sweep-result.json"
