#!/usr/bin/env bash
# Builds the boot lab's initramfs for the binary's architecture (amd64 or arm64): static busybox,
# the hugetune binary (debug info stripped) with the shared libraries its dynamic loader resolves
# and the loader at its own path, hwloc's plugin directory when the system has one for that
# architecture, kexec when installed (amd64 on an amd64 host), tests/vm/init as /init and the
# guest scenarios.
#
#   tests/vm/make-initramfs.sh <hugetune binary> <output .cpio.gz>
#   VMLAB_BUSYBOX=<static busybox of the binary's architecture>  (default /bin/busybox; for arm64
#                 on an amd64 host, the one fetch-kernel.sh arm64 keeps beside the kernel)
#
# The libraries of a binary of another architecture than the host's are those its own loader
# resolves: the arm64 loader and libraries installed through multiarch (/lib/ld-linux-aarch64.so.1,
# /usr/lib/aarch64-linux-gnu, as `make cross-arm64` installs them) run under qemu-user with
# LD_TRACE_LOADED_OBJECTS=1 in the emulated program's environment (qemu's -E: in qemu's own, the
# host's loader would list qemu's libraries), which is what ldd does natively; ldd itself cannot
# run a foreign binary. So the guest gets what an arm64 Debian system would load, at the same
# paths.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 <hugetune binary> <output .cpio.gz>" >&2
    exit 2
fi
binary=$1
output=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/arch.bash
source "$here/lib/arch.bash"
busybox=${VMLAB_BUSYBOX:-/bin/busybox}

[[ -x "$binary" ]] || { echo "vmlab: error: no executable hugetune at $binary" >&2; exit 2; }
arch=$(vmlab_elf_arch "$binary") || {
    echo "vmlab: error: $binary is no amd64 or arm64 ELF binary" >&2
    exit 2
}
vmlab_arch_facts "$arch"
hwloc_plugins=/usr/lib/$vmlab_multiarch/hwloc
file -L "$busybox" 2>/dev/null | grep 'statically linked' >/dev/null || {
    echo "vmlab: error: $busybox is not static; install busybox-static" >&2
    exit 2
}
[[ $(vmlab_elf_arch "$busybox") == "$arch" ]] || {
    echo "vmlab: error: $busybox is not an $arch busybox, as $binary is (VMLAB_BUSYBOX names the guest's)" >&2
    exit 2
}
if [[ $arch != "$(vmlab_host_arch)" ]]; then
    emulator=qemu-${vmlab_multiarch%%-*}
    command -v "$emulator" >/dev/null || {
        echo "vmlab: error: $emulator not found; install qemu-user (make cross-arm64 does)" >&2
        exit 2
    }
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# Copies a file to the same path under the stage, following links so the guest gets the bytes.
copy_to_stage() {
    mkdir -p "$stage/$(dirname "$1")"
    cp -L "$1" "$stage/$1"
}

# What the dynamic loader resolves for an ELF file, as ldd prints it: ldd for the host's
# architecture, the file's own loader under qemu-user for another.
loaded_objects() {
    if [[ $arch == "$(vmlab_host_arch)" ]]; then
        ldd "$1"
    else
        "$emulator" -E LD_TRACE_LOADED_OBJECTS=1 "$1"
    fi
}

# Every library the loader resolves for an ELF file, and the loader line (an absolute path, no
# "=>"). A library it cannot find fails the build: the guest would not run the binary.
copy_shared_libraries() {
    local lib listing
    listing=$(loaded_objects "$1") || {
        echo "vmlab: error: the loader of $1 failed: $listing" >&2
        exit 1
    }
    if grep 'not found' <<<"$listing" >/dev/null; then
        echo "vmlab: error: libraries of $1 not found: $(grep 'not found' <<<"$listing" | xargs)" >&2
        exit 1
    fi
    while read -r lib; do
        [[ -n "$lib" ]] && copy_to_stage "$lib"
    done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$listing")
}

mkdir -p "$stage"/{bin,usr/bin,proc,sys,dev,tmp,run,root,vmlab/scenarios}
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
# The host's objcopy reads only the host's architecture; the cross one (binutils-aarch64-linux-gnu,
# of crossbuild-essential-arm64) the other.
objcopy=objcopy
[[ $arch == "$(vmlab_host_arch)" ]] || objcopy=$vmlab_multiarch-objcopy
"$objcopy" --strip-debug "$binary" "$stage/usr/bin/hugetune"
copy_shared_libraries "$binary"
if [[ -d "$hwloc_plugins" ]]; then
    for plugin in "$hwloc_plugins"/*.so; do
        [[ -e "$plugin" ]] || continue
        copy_to_stage "$plugin"
        copy_shared_libraries "$plugin"
    done
fi
# kexec, when the system has it, for the boot-sweep case (its guest kexecs into each step); the
# host's, so only into guests of the host's architecture.
if [[ $arch == "$(vmlab_host_arch)" ]] && kexec=$(command -v kexec); then
    copy_to_stage "$kexec"
    copy_shared_libraries "$kexec"
fi
install -m 755 "$here/init" "$stage/init"
cp "$here"/scenarios/*.sh "$stage/vmlab/scenarios/"

mkdir -p "$(dirname "$output")"
(cd "$stage" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) | gzip -1 >"$output.tmp"
mv "$output.tmp" "$output"
