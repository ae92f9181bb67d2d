#!/usr/bin/env bash
# apply refuses what it cannot do safely: malformed /etc/default/grub (unterminated quote,
# binary data, empty, a symlink, a directory), bad values and reports, no root on the live
# system. Each gives one error line, the documented exit code, and leaves every file as it was.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"

# refused RC NEEDLE ROOT ARGS...: apply exits RC with one error line containing NEEDLE and
# the tree under ROOT is untouched (no backup, no ledger).
refused() {
    local rc=$1 needle=$2 root=$3
    shift 3
    local before
    before=$(tree_sum "$root")
    expect_error "$rc" "$needle" "$bin" apply --root "$root" --regenerate "$@"
    [[ $(tree_sum "$root") == "$before" ]] || fail "files changed after: $needle"
    nothing_recorded "after: $needle"
}

grub_root() {
    local root=$work/$1
    cp -a "$fixtures/debian" "$root"
    echo "$root"
}

root=$(grub_root quote)
printf 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX="quiet\nGRUB_TIMEOUT=5\n' >"$root/etc/default/grub"
refused 2 "/etc/default/grub:2: unterminated double quote" "$root" --value 8

root=$(grub_root binary)
printf 'GRUB_DEFAULT=0\n\x7fELF\x02\x01\x01\x00\x00\x00\n' >"$root/etc/default/grub"
refused 2 "/etc/default/grub:2: binary data" "$root" --value 8

root=$(grub_root empty)
: >"$root/etc/default/grub"
refused 2 "/etc/default/grub is empty" "$root" --value 8

root=$(grub_root symlink)
mv "$root/etc/default/grub" "$root/etc/default/grub.real"
ln -s grub.real "$root/etc/default/grub"
refused 2 "/etc/default/grub is a symbolic link" "$root" --value 8

root=$(grub_root directory)
rm "$root/etc/default/grub"
mkdir "$root/etc/default/grub"
refused 2 "/etc/default/grub is not a regular file" "$root" --value 8

# A file far larger than any real one is refused before it is parsed, with --dry-run too.
root=$(grub_root huge)
{
    printf 'GRUB_CMDLINE_LINUX="'
    head -c 2000000 /dev/zero | tr '\0' 'a'
    printf '"\n'
} >"$root/etc/default/grub"
refused 2 "/etc/default/grub is 2000022 bytes, more than the 1024 KiB hugetune reads" "$root" \
    --value 8
refused 2 "/etc/default/grub is 2000022 bytes" "$root" --value 8 --dry-run

# A ledger beyond the bounds of every JSON file hugetune reads is refused in one line, as the
# failure of a file hugetune keeps, and left for the user.
root=$(grub_root deep-ledger)
mkdir -p "$root/var/lib/hugetune"
python3 -S -c 'print("[" * 65 + "]" * 65)' >"$root/var/lib/hugetune/applied.json"
expect_error 1 "$root/var/lib/hugetune/applied.json: objects and arrays nested deeper than 64, the most hugetune reads; restore the files from their .hugetune-*.bak backups by hand" \
    "$bin" rollback --root "$root" --dry-run

root=$(grub_root command)
printf 'GRUB_DEFAULT=0\n. /etc/default/grub.local\nGRUB_CMDLINE_LINUX=""\n' >"$root/etc/default/grub"
refused 2 "/etc/default/grub:2:" "$root" --value 8

root=$(grub_root substitution)
printf 'GRUB_CMDLINE_LINUX="$(cat /etc/cmdline.local)"\n' >"$root/etc/default/grub"
refused 2 "GRUB_CMDLINE_LINUX uses command substitution" "$root" --value 8

root=$(grub_root dropin)
mkdir -p "$root/etc/default/grub.d"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="quiet\n' >"$root/etc/default/grub.d/70-broken.cfg"
refused 2 "/etc/default/grub.d/70-broken.cfg:1: unterminated double quote" "$root" --value 8

# A drop-in reached through a symlink is read, but never edited.
root=$(grub_root dropin-link)
mkdir -p "$root/etc/default/grub.d"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="hugepage_alloc_threads=4"\n' >"$root/etc/shared.cfg"
ln -s ../../shared.cfg "$root/etc/default/grub.d/80-link.cfg"
refused 2 "80-link.cfg is a symbolic link" "$root" --value 8

root=$(grub_root values)
for bad in 0 4097 -3 abc 1.5 0x 0x1001 ++8; do
    refused 2 "--value: '$bad' is not an integer from 1 to 4096" "$root" --value "$bad"
done
# The kernel reads a leading 0 as octal: 010 would be 8 to it, ten to a person.
refused 2 "--value: '010' starts with 0, which the kernel reads as octal (8); give the count in decimal" "$root" --value 010
refused 2 "--value: '08' starts with 0, which the kernel reads as octal; give" "$root" --value 08
refused 2 "--report: missing" "$root"
refused 2 "--bootloader: 'lilo' is not one of" "$root" --value 8 --bootloader lilo
refused 2 "--no-regenerate: cannot be combined with --regenerate" "$root" --value 8 --no-regenerate
refused 2 "--bootloader kernel-cmdline:" "$root" --value 8 --bootloader kernel-cmdline

# Bad reports.
report=$work/report.json
printf '{"schema_version": 1, "recommendation": {"hugepage_alloc_threads": 24' >"$report"
refused 2 "not valid JSON" "$root" --report "$report"
printf '{"schema_version": 1, "recommendation": {"kernel_cmdline": "hugepage_alloc_threads=24"}}' >"$report"
refused 2 "recommendation.hugepage_alloc_threads: missing; give --value N instead" "$root" --report "$report"
printf '{"schema_version": 1, "recommendation": {"hugepage_alloc_threads": 24}}' >"$report"
refused 2 "recommendation.kernel_cmdline: missing" "$root" --report "$report"
printf '{"schema_version": 1, "recommendation": {"hugepage_alloc_threads": 24, "kernel_cmdline": "hugepage_alloc_threads=12"}}' >"$report"
refused 2 "'hugepage_alloc_threads=12' is not 'hugepage_alloc_threads=24'" "$root" --report "$report"
printf '{"schema_version": 1, "recommendation": {"hugepage_alloc_threads": 5000, "kernel_cmdline": "hugepage_alloc_threads=5000"}}' >"$report"
refused 2 "recommendation.hugepage_alloc_threads: must be a whole number from 1 to 4096" "$root" --report "$report"
refused 2 "absent.json: no such file" "$root" --report "$work/absent.json"
refused 2 "is a directory" "$root" --report "$work"
expect_error 2 "--root: $work/absent-dir is not a directory" "$bin" apply --value 8 --root "$work/absent-dir"

# No boot loader configuration at all.
mkdir -p "$work/bare/etc"
refused 1 "no boot loader configuration under" "$work/bare" --value 8

# The live system (--root /) needs root; checked before anything is read.
if ! is_root; then
    expect_error 3 "needs root" "$bin" apply --value 8
elif nobody_bin=$(nobody_copy "$bin") && can_run_as_nobody "$nobody_bin"; then
    expect_error 3 "needs root" as_nobody "$nobody_bin" apply --value 8
    expect_error 3 "needs root" as_nobody "$nobody_bin" rollback
    # --regenerate under --root runs the tree's tools by chroot, which only root may: refused
    # before anything is read or written, never a chroot from PATH.
    root=$(grub_root nobody)
    before=$(tree_sum "$root")
    : >"$record"
    for cmd in apply rollback; do
        args=(--root "$root" --regenerate)
        [[ $cmd == apply ]] && args+=(--value 8)
        expect_error 3 "$cmd --regenerate under --root runs $root's own tools by chroot, which needs root" \
            as_nobody "$nobody_bin" "$cmd" "${args[@]}"
    done
    [[ $(tree_sum "$root") == "$before" ]] || fail "a refused --regenerate changed the tree"
    nothing_recorded "as nobody"
    # A user's own tree, whose file has a group the user is not in: apply writes the file as the
    # user's own (only root keeps owner and group), instead of failing on chown.
    root=$(grub_root nobody-group)
    chown -R 65534:65534 "$root"
    chgrp 0 "$root/etc/default/grub"
    expect 0 as_nobody "$nobody_bin" apply --root "$root" --value 8 --no-regenerate
    grep -q 'hugepage_alloc_threads=8' "$root/etc/default/grub" || fail "as nobody: not written"
    [[ $(stat -c %u:%g "$root/etc/default/grub") == 65534:65534 ]] || fail "as nobody: owner"
    expect 0 as_nobody "$nobody_bin" rollback --root "$root" --no-regenerate
    # A grub.d that is there but cannot be listed hides the drop-in that sets the value: an error,
    # never read as empty.
    root=$(grub_root nobody-unlistable)
    mkdir -p "$root/etc/default/grub.d"
    echo 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT hugepage_alloc_threads=8"' \
        >"$root/etc/default/grub.d/50-vendor.cfg"
    chown -R 65534:65534 "$root"
    chmod 0300 "$root/etc/default/grub.d"
    before=$(tree_sum "$root")
    for mode in --dry-run --no-regenerate; do
        expect_error 1 "cannot list $root/etc/default/grub.d: Permission denied" \
            as_nobody "$nobody_bin" apply --root "$root" --value 4 "$mode"
    done
    [[ $(tree_sum "$root") == "$before" ]] || fail "an unlistable grub.d: the tree changed"
else
    echo "note: cannot drop privileges here; the not-root check is not exercised" >&2
fi
echo "apply_errors: ok"
