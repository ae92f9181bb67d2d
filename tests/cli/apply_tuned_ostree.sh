#!/usr/bin/env bash
# Boot parameters that another program owns. tuned puts its profile's [bootloader] cmdline on
# the command line after hugetune's value ($tuned_params) and again at every apply: apply
# refuses when that holds another hugepage_alloc_threads= (naming the profile to add and the
# tuned-adm command), and warns when tuned is active without one. On an ostree system
# (/run/ostree-booted) the deployment's kernel arguments are what boots: apply edits no file
# and runs `rpm-ostree kargs` from an argument vector (printed under --dry-run and --root),
# the ledger records it, and rollback runs the inverse.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"
require_root "apply --root DIR --regenerate runs the root's own tools in it by chroot"
[[ -x /bin/busybox ]] || skip "/bin/busybox is missing (Debian package busybox-static): the roots' stand-ins need a shell"

# --- tuned ---------------------------------------------------------------------------------

# Its profile puts hugepage_alloc_threads=8 after the value (the BLS options end in
# $tuned_params): refused with the profile to add and the command that applies it.
root=$(copy_fixture rhel9-tuned)
root_tools "$root" grubby
refused_apply "/etc/tuned/bootcmdline: tuned puts hugepage_alloc_threads=8 on the kernel command line" "$root" --value 2
stderr_has "create /etc/tuned/hugetune/tuned.conf holding the two lines '[bootloader]' and 'cmdline_hugetune=+hugepage_alloc_threads=2', run: tuned-adm profile throughput-performance hugetune, then run hugetune again"

# Once tuned gives the value asked for, apply goes ahead and says so.
sed -i 's/^TUNED_BOOT_CMDLINE=.*/TUNED_BOOT_CMDLINE="skew_tick=1 hugepage_alloc_threads=8 hugepage_alloc_threads=2"/' \
    "$root/etc/tuned/bootcmdline"
sed -i 's/^tuned_params=.*/tuned_params=skew_tick=1 hugepage_alloc_threads=8 hugepage_alloc_threads=2/' \
    "$root/boot/grub2/grubenv"
expect 0 "$bin" apply --root "$root" --value 2 --dry-run
stderr_has "it is the value asked for, and rollback leaves it to tuned"
# ...and only that: no warning that tuned holds none.
if grep -q "holds no hugepage_alloc_threads=" "$err"; then fail "says tuned holds the value and holds none"; fi

# tuned active without the parameter: applied, with a warning that tuned's $tuned_params follows.
root=$work/tuned-clean
cp -a "$fixtures/rhel9-tuned" "$root"
root_tools "$root" grubby
sed -i 's/ hugepage_alloc_threads=8//' "$root/etc/tuned/bootcmdline" "$root/boot/grub2/grubenv"
: >"$record"
expect 0 "$bin" apply --root "$root" --value 2 --regenerate
stderr_has "hugetune: warning: tuned (profile throughput-performance) appends \$tuned_params after hugepage_alloc_threads=2 in the boot entries"
recorded "grubby [--update-kernel=ALL] [--args=hugepage_alloc_threads=2]"

# grub's environment block still holding tuned's old value: tuned writes it again.
root=$work/tuned-stale-env
cp -a "$fixtures/rhel9-tuned" "$root"
root_tools "$root" grubby
sed -i 's/ hugepage_alloc_threads=8//' "$root/etc/tuned/bootcmdline"
refused_apply "\$tuned_params expands to tuned_params from /boot/grub2/grubenv, which holds hugepage_alloc_threads=8" "$root" --value 2
stderr_has "have tuned write it again from its profiles: tuned-adm profile throughput-performance"

# No profile active, but the value left in tuned's file.
root=$work/tuned-off
cp -a "$fixtures/rhel9-tuned" "$root"
root_tools "$root" grubby
rm "$root/etc/tuned/active_profile"
refused_apply "but no tuned profile is active (/etc/tuned/active_profile), so it is left from an earlier one" "$root" --value 2

# --- ostree --------------------------------------------------------------------------------

# others_sum ROOT: a checksum over every file but the ledger, which apply may write, and the
# stand-ins' record.
others_sum() { (cd "$1" && find . -type f ! -path './var/lib/hugetune/*' ! -name .standin-argv.log -print0 | sort -z | xargs -0 sha256sum | sha256sum); }

root=$(copy_fixture fedora-coreos)
root_tools "$root" rpm-ostree
before=$(others_sum "$root")
: >"$record"
expect 0 "$bin" apply --root "$root" --value 2 --dry-run
stdout_has "not run (--root $root is not this machine; run it inside the target, or pass --regenerate to run the root's own rpm-ostree there by chroot): rpm-ostree kargs --append=hugepage_alloc_threads=2"
stderr_has "hugetune: note: boot loader: ostree (/run/ostree-booted)"
if grep -q '^+++ ' "$out"; then fail "ostree: --dry-run shows a file edit"; fi
[[ ! -e $root/var/lib/hugetune/applied.json ]] || fail "ostree: --dry-run wrote a ledger"
nothing_recorded "ostree --dry-run"
expect 0 "$bin" apply --root "$root" --value 2 --dry-run --regenerate
stdout_has "would run: chroot $root rpm-ostree kargs --append=hugepage_alloc_threads=2"
nothing_recorded "ostree --dry-run --regenerate"

# --root: printed, not run; the ledger records it.
expect 0 "$bin" apply --root "$root" --value 2
stdout_has "not run (--root $root is not this machine"
stdout_has "hugepage_alloc_threads=2 is recorded in the ledger, but not configured yet: run rpm-ostree kargs --append=hugepage_alloc_threads=2 before rebooting"
nothing_recorded "ostree --root"
[[ $(others_sum "$root") == "$before" ]] || fail "ostree: a file of the tree was edited"
grep -q '"bootloader": "ostree"' "$root/var/lib/hugetune/applied.json" || fail "ostree: ledger"

# Run (the stand-in), then rolled back with --delete.
expect 0 "$bin" apply --root "$root" --value 2 --regenerate
recorded "rpm-ostree [kargs] [--append=hugepage_alloc_threads=2]"
[[ $(others_sum "$root") == "$before" ]] || fail "ostree: a file of the tree was edited"
: >"$record"
expect 0 "$bin" rollback --root "$root" --regenerate
recorded "rpm-ostree [kargs] [--delete=hugepage_alloc_threads=2]"
[[ ! -e $root/var/lib/hugetune/applied.json ]] || fail "ostree: ledger left after rollback"

# A value already there is replaced, and put back by rollback.
root=$work/ostree-replace
cp -a "$fixtures/fedora-coreos" "$root"
root_tools "$root" rpm-ostree
sed -i 's/^options .*/& hugepage_alloc_threads=4/' "$root/boot/loader/entries/ostree-2-fedora-coreos.conf"
: >"$record"
expect 0 "$bin" apply --root "$root" --value 2 --regenerate
recorded "rpm-ostree [kargs] [--replace=hugepage_alloc_threads=2]"
: >"$record"
expect 0 "$bin" rollback --root "$root" --regenerate
recorded "rpm-ostree [kargs] [--replace=hugepage_alloc_threads=4]"
# The same value: nothing to run.
: >"$record"
expect 0 "$bin" apply --root "$root" --value 4 --regenerate
stdout_has "no change: hugepage_alloc_threads=4 is already configured"
nothing_recorded "ostree same value"

# rpm-ostree fails: nothing changed, no ledger left.
root=$work/ostree-fail
cp -a "$fixtures/fedora-coreos" "$root"
root_tools "$root" rpm-ostree
STANDIN_EXIT=1 refused_with 1 "chroot $root rpm-ostree kargs --append=hugepage_alloc_threads=2 failed with exit code 1: stand-in failure; nothing was changed" \
    "$bin" apply --root "$root" --value 2 --regenerate
[[ ! -e $root/var/lib/hugetune/applied.json ]] || fail "ostree-fail: a ledger names a change that failed"

# Refused: a boot loader chosen by hand, a staged deployment, several values.
root=$work/ostree-refused
cp -a "$fixtures/fedora-coreos" "$root"
root_tools "$root" rpm-ostree
refused_apply "--bootloader grub: $root/run/ostree-booted exists: an ostree system boots with its deployment's kernel arguments" \
    "$root" --value 2 --bootloader grub
mkdir -p "$root/run/ostree"
: >"$root/run/ostree/staged-deployment"
refused_apply "/run/ostree/staged-deployment: a deployment is staged for the next boot" "$root" --value 2
rm -r "$root/run/ostree"
sed -i 's/^options .*/& hugepage_alloc_threads=4 hugepage_alloc_threads=8/' "$root/boot/loader/entries/ostree-2-fedora-coreos.conf"
refused_apply "hold 2 hugepage_alloc_threads= values, which rpm-ostree kargs --replace cannot change at once" "$root" --value 2
expect_error 2 "--bootloader: 'ostree' is not one of" "$bin" apply --root "$root" --value 2 --bootloader ostree
echo "apply_tuned_ostree: ok"
