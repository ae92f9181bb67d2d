#!/usr/bin/env bash
# mmdebstrap's customize hook for build-image.sh: what an installer would have set up, in the
# unpacked tree ROOT. GRUB and the kernel talk on the first serial port (the lab reads the boot
# from outside), and the command line holds a small boot pool (64 x 2 MiB), so the kernel logs
# the allocation line that `hugetune verify` reads. two-kernels moves the pool and the serial
# console into /etc/default/grub.d/ drop-ins, as cloud images keep theirs.
#
#   configure-image.sh ROOT ROOT_UUID plain|two-kernels
set -euo pipefail
root=$1 uuid=$2 variant=$3

echo debian-lab >"$root/etc/hostname"
printf '127.0.1.1\tdebian-lab\n' >>"$root/etc/hosts"
echo "UUID=$uuid / ext4 errors=remount-ro 0 1" >"$root/etc/fstab"
# No password: nobody logs in, and the lab's step unit is the only thing that runs.
set_grub() {
    local name=$1 value=$2 file=$root/etc/default/grub
    if grep -q "^#\?$name=" "$file"; then
        sed -i "s|^#\?$name=.*|$name=$value|" "$file"
    else
        echo "$name=$value" >>"$file"
    fi
}
set_grub GRUB_TIMEOUT 1
set_grub GRUB_TERMINAL serial
set_grub GRUB_SERIAL_COMMAND '"serial --unit=0 --speed=115200"'
set_grub GRUB_DISABLE_OS_PROBER true
if [[ $variant == plain ]]; then
    set_grub GRUB_CMDLINE_LINUX '"console=ttyS0,115200 hugepages=64"'
else
    set_grub GRUB_CMDLINE_LINUX '""'
    mkdir -p "$root/etc/default/grub.d"
    echo 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX console=ttyS0,115200"' \
        >"$root/etc/default/grub.d/40-serial.cfg"
    printf '%s\n' '# The boot pool of the machine, kept by its owner apart from the distribution file.' \
        'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT hugepages=64"' \
        >"$root/etc/default/grub.d/60-hugepages.cfg"
fi
rm -f "$root"/var/cache/apt/archives/*.deb
