#!/usr/bin/env bash
# Builds (or takes from the cache) the Debian 12 disk image of the `debian_system` lab
# (tests/vm/README.md "A real Debian system"): a raw disk with an MBR partition table, one ext4
# partition, GRUB installed to the disk and its grub.cfg made by the image's own update-grub, so
# the guest boots from the disk through its own GRUB. Everything in it is a Debian package:
# bookworm's userland (systemd as init, grub-pc, initramfs-tools) and the hugetune .deb with its
# dependencies, and Debian sid's cloud kernel (bookworm's 6.1 predates hugepage_alloc_threads=,
# which came with Linux 6.15: docs/kernel-facts.md).
#
#   tests/vm/debian/build-image.sh <hugetune .deb> <plain|two-kernels>
# Prints the image's directory: disk.raw, vmlinuz (the default kernel, for the KVM probe),
# manifest (the key's inputs and the installed kernels). two-kernels adds bookworm's own kernel
# (6.1, a second menu entry that update-grub orders after sid's) and /etc/default/grub.d/
# drop-ins. Cached in ${HUGETUNE_VM_CACHE:-/var/cache/hugetune-vm}/debian/ under a key of this
# script, the variant and the .deb's sha256; a change of any builds a new image. Root.
set -euo pipefail

deb=$(realpath "${1:?usage: $0 <hugetune .deb> <plain|two-kernels>}")
variant=${2:?usage: $0 <hugetune .deb> <plain|two-kernels>}
case $variant in plain | two-kernels) ;; *)
    echo "vmlab: error: no image variant '$variant'; give plain or two-kernels" >&2
    exit 2
    ;;
esac
[[ -f $deb ]] || { echo "vmlab: error: no package at $deb (make package builds it)" >&2; exit 2; }
here=$(dirname "$(realpath "$0")")
cache=${HUGETUNE_VM_CACHE:-/var/cache/hugetune-vm}/debian
# The key: this script, the image's configuration and kernel hook, the variant and the package.
key=$( { cat "$0" "$here/configure-image.sh" "$here/kernel-hooks/00-image-to-boot"; echo "$variant"
    sha256sum <"$deb"; } | sha256sum | cut -c1-16)
image_dir=$cache/$variant-$key
if [[ -s $image_dir/disk.raw && -s $image_dir/manifest ]]; then
    echo "vmlab: debian image $variant-$key cached" >&2
    echo "$image_dir"
    exit 0
fi

archive=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# The archive the system's apt uses (a mirror of this machine's), else Debian's.
uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' \
    /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[[ -n $uri ]] && archive=$uri
packages=systemd-sysv,udev,kmod,procps,initramfs-tools,grub-pc,linux-image-cloud-amd64
[[ $variant == two-kernels ]] && packages+=,linux-image-amd64/bookworm

# shellcheck source=disk.bash
source "$here/disk.bash"
work=$(mktemp -d "${TMPDIR:-/tmp}/vmlab-debian-image.XXXXXX")
mnt=$work/mnt
cleanup() {
    local m
    for m in dev/pts dev proc sys ""; do
        mountpoint -q "$mnt/$m" 2>/dev/null && umount "$mnt/$m"
    done
    debian_disk_detach
    # A failed mmdebstrap can leave the package's bind mount (file-mirror-automount) behind.
    awk -v w="$work/" 'index($2, w) { print $2 }' /proc/mounts | xargs -r umount
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$cache/archives" "$mnt"
cp "$deb" "$work/hugetune.deb"
# The root file system's UUID, from the key: the cached tree's fstab names it.
h=$(echo "debian-lab $key" | sha256sum)
uuid=${h:0:8}-${h:8:4}-4${h:13:3}-8${h:17:3}-${h:20:12}
# Only the kernel's packages come from sid (apt preferences in the image): everything else is
# bookworm's. The sid Release file is dated for a week; a mirror that serves an archive snapshot
# hands out an older one, so its date is not checked (its signature is).
started=$SECONDS
# The unpacked tree is kept beside the images under the same key, so a failure after it (the
# disk, GRUB) does not download and install everything again.
tree=$cache/$variant-$key.tar
if [[ ! -s $tree ]]; then
echo "vmlab: building the debian image $variant-$key (mmdebstrap, $archive)" >&2
mmdebstrap --variant=apt --mode=root --format=tar --aptopt='APT::Default-Release "bookworm"' \
    --setup-hook='mkdir -p "$1"/var/cache/apt/archives "$1"/etc/apt/preferences.d "$1"/etc/dpkg/dpkg.cfg.d "$1"/etc/kernel/postinst.d' \
    --setup-hook='echo "path-exclude=/usr/share/kernel/*" >"$1"/etc/dpkg/dpkg.cfg.d/kernel-hooks-in-etc' \
    --setup-hook="copy-in $here/kernel-hooks/00-image-to-boot /etc/kernel/postinst.d" \
    --setup-hook="sync-in $cache/archives /var/cache/apt/archives" \
    --setup-hook='printf "%s\n" "Package: linux-image-cloud-amd64 linux-base linux-image-*-cloud-amd64 linux-binary-*-cloud-amd64 linux-modules-*-cloud-amd64 linux-base-*-cloud-amd64" "Pin: release n=sid" "Pin-Priority: 995" >"$1"/etc/apt/preferences.d/kernel-from-sid' \
    --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
    --include="$packages" --include="$work/hugetune.deb" \
    --customize-hook="sync-out /var/cache/apt/archives $cache/archives" \
    --customize-hook="$here/configure-image.sh \"\$1\" $uuid $variant" \
    bookworm "$tree.partial" \
    "deb [signed-by=$keyring] $archive bookworm main" \
    "deb [signed-by=$keyring check-valid-until=no] $archive sid main" >"$work/mmdebstrap.log" 2>&1 || {
    tail -n 30 "$work/mmdebstrap.log" >&2
    echo "vmlab: error: mmdebstrap failed (above)" >&2
    exit 1
}
mv "$tree.partial" "$tree"
echo "vmlab: mmdebstrap took $((SECONDS - started)) s" >&2
fi

# One partition from 1 MiB: the gap before it holds GRUB's core image.
truncate -s 3G "$work/disk.raw"
echo 'label: dos
start=2048, type=83, bootable' | sfdisk -q "$work/disk.raw"
debian_disk_attach "$work/disk.raw"
loop=$debian_loop
mkfs.ext4 -q -U "$uuid" -L debian-lab "$debian_partition"
mount "$debian_partition" "$mnt"
tar -xpf "$tree" -C "$mnt" --xattrs --xattrs-include='*' --numeric-owner
mount --bind /dev "$mnt/dev"
mount --bind /dev/pts "$mnt/dev/pts"
mount -t proc proc "$mnt/proc"
mount -t sysfs sysfs "$mnt/sys"
# The image's own grub-install and update-grub, as an installer runs them.
chroot "$mnt" grub-install --target=i386-pc "$loop" >"$work/grub.log" 2>&1 &&
    chroot "$mnt" update-grub >>"$work/grub.log" 2>&1 || {
    cat "$work/grub.log" >&2
    echo "vmlab: error: installing GRUB into the image failed (above)" >&2
    exit 1
}
{
    echo "variant $variant"
    echo "key $key"
    echo "package $(basename "$deb") $(sha256sum <"$deb" | cut -d' ' -f1)"
    echo "root_uuid $uuid"
    chroot "$mnt" dpkg-query -W -f='installed ${Package} ${Version}\n' \
        'linux-image-*' hugetune grub-pc systemd
    sed -n 's/^\s*menuentry .\([^'"'"']*\).*/menuentry \1/p' "$mnt/boot/grub/grub.cfg"
} >"$work/manifest"
# The newest kernel, the one GRUB boots by default.
cp "$(find "$mnt/boot" -name 'vmlinuz-*' | sort -V | tail -n 1)" "$work/vmlinuz"
for m in dev/pts dev proc sys ""; do umount "$mnt/$m"; done
debian_disk_detach
mkdir -p "$image_dir.partial"
mv "$work/disk.raw" "$work/vmlinuz" "$work/manifest" "$image_dir.partial/"
rm -rf "$image_dir"
mv "$image_dir.partial" "$image_dir"
echo "vmlab: debian image $variant-$key built in $((SECONDS - started)) s" >&2
echo "$image_dir"
