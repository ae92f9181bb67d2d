#!/usr/bin/env bash
# Builds the boot lab's initramfs: static busybox, the hugetune binary (debug info stripped)
# with the shared libraries ldd names and the dynamic loader at its own path, hwloc's plugin
# directory when the system has one, kexec when installed, tests/vm/init as /init and the guest
# scenarios.
#
#   tests/vm/make-initramfs.sh <hugetune binary> <output .cpio.gz>
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 <hugetune binary> <output .cpio.gz>" >&2
    exit 2
fi
binary=$1
output=$2
here=$(cd "$(dirname "$0")" && pwd)
busybox=/bin/busybox
hwloc_plugins=/usr/lib/x86_64-linux-gnu/hwloc

[[ -x "$binary" ]] || { echo "vmlab: error: no executable hugetune at $binary" >&2; exit 2; }
file -L "$busybox" 2>/dev/null | grep 'statically linked' >/dev/null || {
    echo "vmlab: error: $busybox is not static; install busybox-static" >&2
    exit 2
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# Copies a file to the same path under the stage, following links so the guest gets the bytes.
copy_to_stage() {
    mkdir -p "$stage/$(dirname "$1")"
    cp -L "$1" "$stage/$1"
}

# Every library ldd resolves for an ELF file, and the loader line (an absolute path, no "=>").
copy_shared_libraries() {
    local lib
    while read -r lib; do
        [[ -n "$lib" ]] && copy_to_stage "$lib"
    done < <(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
}

mkdir -p "$stage"/{bin,usr/bin,proc,sys,dev,tmp,run,root,vmlab/scenarios}
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
objcopy --strip-debug "$binary" "$stage/usr/bin/hugetune"
copy_shared_libraries "$binary"
if [[ -d "$hwloc_plugins" ]]; then
    for plugin in "$hwloc_plugins"/*.so; do
        [[ -e "$plugin" ]] || continue
        copy_to_stage "$plugin"
        copy_shared_libraries "$plugin"
    done
fi
# kexec, when the system has it, for the boot-sweep case (its guest kexecs into each step).
if kexec=$(command -v kexec); then
    copy_to_stage "$kexec"
    copy_shared_libraries "$kexec"
fi
install -m 755 "$here/init" "$stage/init"
cp "$here"/scenarios/*.sh "$stage/vmlab/scenarios/"

mkdir -p "$(dirname "$output")"
(cd "$stage" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) | gzip -1 >"$output.tmp"
mv "$output.tmp" "$output"
