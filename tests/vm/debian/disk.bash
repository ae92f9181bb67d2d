# shellcheck shell=bash
# The Debian lab's disk image on a loop device, for build-image.sh and run.sh.

# debian_disk_attach IMAGE [ro]: attaches IMAGE with its partitions; sets debian_loop and
# debian_partition (the first partition's device). The kernel does not always scan the
# partitions of a new loop device at once (here `losetup -P` left no loop0p1 in the
# development machine's container); partx adds them from the table.
debian_disk_attach() {
    local -a ro=()
    [[ ${2:-} == ro ]] && ro=(-r)
    debian_loop=$(losetup "${ro[@]}" -P --show -f "$1") || return 1
    debian_partition=${debian_loop}p1
    [[ -b $debian_partition ]] || partx -a "$debian_loop" 2>/dev/null || true
    [[ -b $debian_partition ]] || {
        echo "vmlab: error: no partition device $debian_partition for $1" >&2
        return 1
    }
}

# debian_disk_detach: the loop device of debian_disk_attach, if any.
debian_disk_detach() {
    [[ -n ${debian_loop:-} ]] && losetup -d "$debian_loop"
    debian_loop=""
}
