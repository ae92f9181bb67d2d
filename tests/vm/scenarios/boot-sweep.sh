# Guest side of a boot-sweep: init plays systemd's part and runs this at every boot. The state
# lives on the virtio disk (ext4), mounted at /var/lib/hugetune, with the kernel and initrd to
# kexec in its boot/ directory. The first boot (no state) plans and starts the sweep with
# vmlab.threads=<LIST>, vmlab.pages=<P>, vmlab.reps=<R> (default 1) and, when given,
# vmlab.ioa=<--init-on-alloc> and vmlab.hvo=<--hugetlb-free-vmemmap>; every later boot runs
# `continue`, which kexecs into the next step or, after the last one, back to the first boot's
# command line; the boot that finds the sweep ended prints its status and result.
# vmlab.plant=no-line floods the kernel log on the first step's boot, so that its allocation
# line is gone before `continue` reads it. vmlab.plant=human plays a person who takes over at
# the first step's boot: it kexecs into the original command line plus nomodeset itself, and
# that boot runs `continue`. vmlab.plant=lockdown (with lockdown=integrity on the command line)
# mounts securityfs as systemd does and runs plan and start, which must refuse before any kexec,
# then plan again with kexec switched off by kexec_load_disabled. Each boot prints its command
# line in section "cmdline"; sections of the same name from several boots follow one another.
. /vmlab/scenarios/lib.sh

echo "VMLAB-SECTION cmdline"
cat /proc/cmdline

if [ "$(cmdline_value vmlab.plant)" = lockdown ]; then
    mkdir -p /sys/kernel/security
    mount -t securityfs securityfs /sys/kernel/security
    echo "VMLAB-SECTION lockdown"
    cat /sys/kernel/security/lockdown
    pages=$(cmdline_value vmlab.pages)
    run_section plan hugetune boot-sweep plan --threads 1,2 --pages "$pages" --initrd none
    run_section start hugetune boot-sweep start --threads 1,2 --pages "$pages" --initrd none --no-systemd
    echo 1 >/proc/sys/kernel/kexec_load_disabled
    run_section plan-kexec-off hugetune boot-sweep plan --threads 1,2 --pages "$pages" --initrd none
    run_section state ls /var/lib/hugetune
    exit 0
fi
insmod /vmlab/virtio_blk.ko 2>/dev/null
tries=0
while [ ! -b /dev/vda ] && [ $tries -lt 100 ]; do
    sleep 0.1
    tries=$((tries + 1))
done
mkdir -p /var/lib/hugetune
mount -t ext4 /dev/vda /var/lib/hugetune || {
    echo "VMLAB-SECTION disk"
    echo "no disk: /dev/vda did not mount"
    exit 1
}
state=/var/lib/hugetune/boot-sweep.json
image="--kernel /var/lib/hugetune/boot/vmlinuz --initrd /var/lib/hugetune/boot/initrd.img"

if [ ! -e "$state" ]; then
    threads=$(cmdline_value vmlab.threads)
    pages=$(cmdline_value vmlab.pages)
    reps=$(cmdline_value vmlab.reps)
    ioa=$(cmdline_value vmlab.ioa)
    hvo=$(cmdline_value vmlab.hvo)
    settings="--init-on-alloc ${ioa:-keep} --hugetlb-free-vmemmap ${hvo:-keep}"
    # shellcheck disable=SC2086 # $image and $settings are options and their values
    run_section plan hugetune boot-sweep plan --threads "$threads" --pages "$pages" --repetitions "${reps:-1}" $image $settings --json
    # Returns only when it did not kexec.
    # shellcheck disable=SC2086
    run_section start hugetune boot-sweep start --threads "$threads" --pages "$pages" --repetitions "${reps:-1}" $image $settings --no-systemd
    exit 1
fi

if [ "$(cmdline_value vmlab.plant)" = no-line ] && [ "$(cmdline_value hugepage_alloc_threads)" = 1 ]; then
    # Far more than the log buffer holds: the boot's own lines are overwritten.
    i=0
    while [ $i -lt 6000 ]; do
        echo "vmlab: filler $i: this line pushes the boot's allocation line out of the kernel log"
        i=$((i + 1))
    done >/dev/kmsg
fi
if [ "$(cmdline_value vmlab.plant)" = human ] && [ "$(cmdline_value hugepage_alloc_threads)" = 1 ]; then
    original=$(sed 's/ hugepagesz=[^ ]* hugepages=[^ ]* hugepage_alloc_threads=[^ ]*$//' /proc/cmdline)
    echo "VMLAB-SECTION human"  # what follows, to the next boot's first section, is not a cmdline
    kexec -l /var/lib/hugetune/boot/vmlinuz --initrd=/var/lib/hugetune/boot/initrd.img \
        --append="$original nomodeset"
    umount /var/lib/hugetune
    kexec -e
    exit 1
fi
run_section continue hugetune boot-sweep continue
# Still here: the sweep has ended (or continue failed); the host judges which.
run_section status hugetune boot-sweep status --json
