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
archive=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# The archive the system's apt uses (a mirror of this machine's), else Debian's.
uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' \
    /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[[ -n $uri ]] && archive=$uri
# dbus: systemd recommends it, and an installed system has it; systemd-run --wait talks to
# the manager through it (tests/cli/systemd_sandbox.sh).
packages=systemd-sysv,dbus,udev,kmod,procps,initramfs-tools,grub-pc,linux-image-cloud-amd64
[[ $variant == two-kernels ]] && packages+=,linux-image-amd64/bookworm

# make_tree TAR UUID: the installed system as a tarball, by mmdebstrap. Only the kernel's
# packages come from sid (an apt preference in the image): everything else is bookworm's. sid's
# Release file is dated for a week; a mirror that serves an archive snapshot hands out an older
# one, so its date is not checked (its signature is).
make_tree() {
    mmdebstrap --variant=apt --mode=root --format=tar \
        --aptopt='APT::Default-Release "bookworm"' \
        --setup-hook='mkdir -p "$1"/var/cache/apt/archives "$1"/etc/apt/preferences.d "$1"/etc/dpkg/dpkg.cfg.d "$1"/etc/kernel/postinst.d' \
        --setup-hook='echo "path-exclude=/usr/share/kernel/*" >"$1"/etc/dpkg/dpkg.cfg.d/kernel-hooks-in-etc' \
        --setup-hook="copy-in $here/kernel-hooks/00-image-to-boot /etc/kernel/postinst.d" \
        --setup-hook="sync-in $cache/archives /var/cache/apt/archives" \
        --setup-hook='printf "%s\n" "Package: linux-image-cloud-amd64 linux-base linux-image-*-cloud-amd64 linux-binary-*-cloud-amd64 linux-modules-*-cloud-amd64 linux-base-*-cloud-amd64" "Pin: release n=sid" "Pin-Priority: 995" >"$1"/etc/apt/preferences.d/kernel-from-sid' \
        --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
        --include="$packages" --include="$work/hugetune.deb" \
        --customize-hook="sync-out /var/cache/apt/archives $cache/archives" \
        --customize-hook="$here/configure-image.sh \"\$1\" $2 $variant" \
        bookworm "$1" \
        "deb [signed-by=$keyring] $archive bookworm main" \
        "deb [signed-by=$keyring check-valid-until=no] $archive sid main"
}

# The keys: the tree's (make_tree, the package list, the image's configuration and kernel hook,
# the variant, the package) and the image's (the tree's and this whole script).
tree_key=$( { declare -f make_tree; echo "$packages"
    cat "$here/configure-image.sh" "$here/kernel-hooks/00-image-to-boot"; echo "$variant"
    sha256sum <"$deb"; } | sha256sum | cut -c1-16)
key=$( { echo "$tree_key"; cat "$0"; } | sha256sum | cut -c1-16)
image_dir=$cache/$variant-$key
if [[ -s $image_dir/disk.raw && -s $image_dir/manifest ]]; then
    echo "vmlab: debian image $variant-$key cached" >&2
    echo "$image_dir"
    exit 0
fi

# shellcheck source=disk.bash
source "$here/disk.bash"
work=$(mktemp -d "${TMPDIR:-/tmp}/vmlab-debian-image.XXXXXX")
mnt=$work/mnt
cleanup() {
    local m
    for m in dev proc sys ""; do
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
started=$SECONDS
# The unpacked tree is kept beside the images under its own key, so a change after it (the
# disk, GRUB) does not download and install everything again. The root file system's UUID is
# the one its fstab names.
tree=$cache/$variant-tree-$tree_key.tar
uuid=$(tar -xOf "$tree" ./etc/fstab 2>/dev/null | sed -n 's|^UUID=\([-0-9a-f]*\) / .*|\1|p' || true)
if [[ ! -s $tree || -z $uuid ]]; then
    uuid=$(cat /proc/sys/kernel/random/uuid)
    echo "vmlab: building the debian tree $variant-tree-$tree_key (mmdebstrap, $archive)" >&2
    make_tree "$tree.partial" "$uuid" >"$work/mmdebstrap.log" 2>&1 || {
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
mkfs.ext4 -q -U "$uuid" -L debian-lab "$debian_partition"
mount "$debian_partition" "$mnt"
tar -xpf "$tree" -C "$mnt" --xattrs --xattrs-include='*' --numeric-owner
# A /dev of its own for the chroot (not the host's, which it would change): the nodes GRUB's
# tools open and /dev/disk/by-uuid/, which grub-mkconfig needs to write root=UUID= (without it,
# the loop device's name) and which no udev makes here.
mount -t tmpfs -o mode=755 vmlab-dev "$mnt/dev"
cp -a /dev/null /dev/zero /dev/full /dev/random /dev/urandom "$debian_loop" "$debian_partition" \
    "$mnt/dev/"
mkdir -p "$mnt/dev/disk/by-uuid"
ln -s "../../$(basename "$debian_partition")" "$mnt/dev/disk/by-uuid/$uuid"
mount -t proc proc "$mnt/proc"
mount -t sysfs sysfs "$mnt/sys"
# The image's own grub-install and update-grub, as an installer runs them.
chroot "$mnt" grub-install --target=i386-pc "$debian_loop" >"$work/grub.log" 2>&1 &&
    chroot "$mnt" update-grub >>"$work/grub.log" 2>&1 || {
    cat "$work/grub.log" >&2
    echo "vmlab: error: installing GRUB into the image failed (above)" >&2
    exit 1
}
grep -q "root=UUID=$uuid " "$mnt/boot/grub/grub.cfg" || {
    echo "vmlab: error: the image's grub.cfg does not name the root file system by its UUID $uuid" >&2
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
for m in dev proc sys ""; do umount "$mnt/$m"; done
debian_disk_detach
mkdir -p "$image_dir.partial"
mv "$work/disk.raw" "$work/vmlinuz" "$work/manifest" "$image_dir.partial/"
rm -rf "$image_dir"
mv "$image_dir.partial" "$image_dir"
echo "vmlab: debian image $variant-$key built in $((SECONDS - started)) s" >&2
# The variant's older images and trees (inputs that changed since) go: each is hundreds of MiB.
find "$cache" -mindepth 1 -maxdepth 1 -regextype posix-extended \
    -regex ".*/$variant-(tree-)?[0-9a-f]{16}(\.tar|\.tar\.partial|\.partial)?" \
    ! -path "$image_dir" ! -path "$tree" -exec rm -rf {} +
echo "$image_dir"
