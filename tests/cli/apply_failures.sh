#!/usr/bin/env bash
# An apply or rollback whose writes fail (a directory that refuses new files: immutable as
# root, read-only otherwise) changes nothing it does not report: no ledger entry and no backup
# for a file never written, the files already written put back, and a later rollback finds
# nothing to undo. Success lines claim only the steps that were done.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"

# lock_dir PATH / unlock_dir PATH: PATH refuses changes, for root too (a directory: new
# entries and renames; a file: being replaced, as root only).
lock_dir() {
    if is_root; then
        chattr +i "$1" || skip "chattr +i is not supported on $1"
        at_exit "chattr -i '$1'"
    else
        chmod a-w "$1"
    fi
}
unlock_dir() {
    if is_root; then chattr -i "$1"; else chmod u+w "$1"; fi
}

no_ledger() { [[ ! -e $1/var/lib/hugetune/applied.json ]] || fail "$2: a ledger was written"; }
no_backup() {
    [[ -z $(find "$1" -name '*.hugetune-*.bak') ]] || {
        find "$1" -name '*.hugetune-*.bak' >&2
        fail "$2: a backup of a file never written"
    }
}

# The only file cannot be replaced: nothing written, no backup, no ledger, rollback has
# nothing to do.
root=$(copy_fixture debian)
before=$(tree_sum "$root")
lock_dir "$root/etc/default"
expect 1 "$bin" apply --value 8 --root "$root" --no-regenerate
error_line "/etc/default/grub"
unlock_dir "$root/etc/default"
[[ $(tree_sum "$root") == "$before" ]] || fail "debian: files changed by a failed apply"
no_ledger "$root" debian
expect_error 1 "nothing to roll back" "$bin" rollback --root "$root" --no-regenerate

# The file itself immutable (root only: its directory takes the backup, the rename is refused).
if is_root; then
    root=$work/debian-immutable
    cp -a "$fixtures/debian" "$root"
    before=$(tree_sum "$root")
    chattr +i "$root/etc/default/grub" || skip "chattr +i is not supported here"
    at_exit "chattr -i '$root/etc/default/grub'"
    expect 1 "$bin" apply --value 8 --root "$root" --no-regenerate
    error_line "/etc/default/grub"
    chattr -i "$root/etc/default/grub"
    [[ $(tree_sum "$root") == "$before" ]] || fail "immutable: files changed by a failed apply"
    no_ledger "$root" immutable
    expect_error 1 "nothing to roll back" "$bin" rollback --root "$root" --no-regenerate
else
    echo "note: not root; an immutable file is not tried" >&2
fi

# Two files, the second refused: the first is put back as it was, no backups stay, no ledger.
root=$(copy_fixture rhel9)
before=$(tree_sum "$root")
lock_dir "$root/etc/kernel"
expect 1 "$bin" apply --value 8 --root "$root" --no-regenerate
error_line "/etc/kernel/cmdline"
unlock_dir "$root/etc/kernel"
[[ $(tree_sum "$root") == "$before" ]] || fail "rhel9: the first file was not put back"
no_ledger "$root" rhel9
no_backup "$root" rhel9

# A second apply that fails keeps the first one's ledger as it was, so rollback still goes back
# to the configuration before the first apply.
root=$work/debian-second
cp -a "$fixtures/debian" "$root"
expect 0 "$bin" apply --value 8 --root "$root" --no-regenerate
ledger_before=$(sha256sum <"$root/var/lib/hugetune/applied.json")
# As root the file itself refuses the rename, after its backup and the ledger could be written.
locked=$root/etc/default
is_root && locked=$root/etc/default/grub
lock_dir "$locked"
expect 1 "$bin" apply --value 16 --root "$root" --no-regenerate
unlock_dir "$locked"
[[ $(sha256sum <"$root/var/lib/hugetune/applied.json") == "$ledger_before" ]] ||
    fail "a failed second apply changed the ledger"
grep -q 'hugepage_alloc_threads=8"' "$root/etc/default/grub" || fail "the first apply's value is gone"
expect 0 "$bin" rollback --root "$root" --no-regenerate
stdout_has "rolled back hugepage_alloc_threads=8"
cmp -s "$fixtures/debian/etc/default/grub" "$root/etc/default/grub" || fail "rollback after a failed apply"

# Not rebuilt, not configured for the next boot: the last line says what is left to do.
root=$work/debian-noregen
cp -a "$fixtures/debian" "$root"
expect 0 "$bin" apply --value 8 --root "$root" --no-regenerate
if grep -q "configured for the next boot" "$out"; then
    fail "claims the next boot is configured though update-grub did not run"
fi
stdout_has "hugepage_alloc_threads=8 is written to the configuration; the boot entries are not rebuilt yet: run update-grub"
expect 0 "$bin" rollback --root "$root" --no-regenerate
stdout_has "the boot entries are not rebuilt yet: run update-grub"
if is_root && [[ -x /bin/busybox ]]; then
    root_tools "$root" update-grub
    expect 0 "$bin" apply --value 8 --root "$root" --regenerate
    stdout_has "hugepage_alloc_threads=8 is configured for the next boot"
else
    echo "note: --regenerate runs the root's update-grub by chroot, which needs root and busybox-static; left out"
fi
echo "apply_failures: ok"
