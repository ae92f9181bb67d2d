#!/usr/bin/env bash
# apply and rollback on copies of the fixture roots (Debian, Ubuntu cloud image, RHEL 9 with
# BLS and grubby, systemd-boot): golden files, one token after two applies, rollback byte for
# byte, and the regenerate commands as recorded by the root's own stand-ins, run inside it by
# chroot with --regenerate; this machine's tools, first on PATH, must never run for a --root.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"
require_root "apply --root DIR --regenerate runs the root's own tools in it by chroot"
[[ -x /bin/busybox ]] || skip "/bin/busybox is missing (Debian package busybox-static): the roots' stand-ins need a shell"

# check_golden NAME ROOT: every fixture file equals its golden file if there is one, else
# the original (the root's tools aside: root_tools replaces them with recording stand-ins).
check_golden() {
    local name=$1 root=$2 rel
    while IFS= read -r rel; do
        [[ $rel == usr/sbin/* ]] && continue
        local want=$fixtures/$name/$rel
        [[ -f $fixtures/golden/$name/$rel ]] && want=$fixtures/golden/$name/$rel
        cmp -s "$want" "$root/$rel" || { diff -u "$want" "$root/$rel" >&2 || true; fail "$name: $rel"; }
    done < <(cd "$fixtures/$name" && find . -type f | sed 's|^\./||')
}

check_original() {
    local name=$1 root=$2 rel
    while IFS= read -r rel; do
        [[ $rel == usr/sbin/* ]] && continue
        cmp -s "$fixtures/$name/$rel" "$root/$rel" || fail "$name: $rel not restored byte for byte"
    done < <(cd "$fixtures/$name" && find . -type f | sed 's|^\./||')
}

token_count() { grep -o 'hugepage_alloc_threads=' "$1" | wc -l; }

declare -A regen=(
    [debian]="update-grub"
    [ubuntu-cloud]="update-grub"
    [ubuntu-dropin]="update-grub"
    [rhel9]="grubby [--update-kernel=ALL] [--args=hugepage_alloc_threads=32]"
    [systemd-boot]=""
    [systemd-boot-esp]=""
)
declare -A tools=(
    [debian]="update-grub"
    [ubuntu-cloud]="update-grub"
    [ubuntu-dropin]="update-grub"
    [rhel9]="grubby"
    [systemd-boot]=""
    [systemd-boot-esp]=""
)
declare -A regen_back=(
    [debian]="update-grub"
    [ubuntu-cloud]="update-grub"
    [ubuntu-dropin]="update-grub"
    [rhel9]="grubby [--update-kernel=ALL] [--args=hugepage_alloc_threads=16]"
    [systemd-boot]=""
    [systemd-boot-esp]=""
)

for name in debian ubuntu-cloud ubuntu-dropin rhel9 systemd-boot systemd-boot-esp; do
    root=$(copy_fixture "$name")
    # shellcheck disable=SC2086 # a list of tool names
    [[ -z ${tools[$name]} ]] || root_tools "$root" ${tools[$name]}
    : >"$record"

    # --dry-run: the diff, and the command as the real run under --root says it (not run),
    # nothing written.
    before=$(tree_sum "$root")
    expect 0 "$bin" apply --value 32 --root "$root" --dry-run
    [[ $(tree_sum "$root") == "$before" ]] || fail "$name: --dry-run wrote something"
    nothing_recorded "$name: --dry-run"
    stdout_has "+++ b/etc/"
    [[ -z ${regen[$name]} ]] || stdout_has "not run (--root $root is not this machine; "
    ! grep -qF "would run: " "$out" || { cat "$out" >&2; fail "$name: --dry-run under --root says it would run a tool"; }
    expect 0 "$bin" apply --value 32 --root "$root" --dry-run --no-regenerate
    [[ -z ${regen[$name]} ]] || stdout_has "not run (--no-regenerate)"
    expect 0 "$bin" apply --value 32 --root "$root" --dry-run --regenerate
    nothing_recorded "$name: --dry-run --regenerate"
    [[ -z ${regen[$name]} ]] || stdout_has "would run: chroot $root "

    # --root without --regenerate: the tools would act on this machine, so they are not run.
    expect 0 "$bin" apply --value 32 --root "$root"
    nothing_recorded "$name: regenerated outside the root without --regenerate"
    check_golden "$name" "$root"
    [[ -z ${regen[$name]} ]] || stdout_has "not run (--root"
    [[ -n $(find "$root/etc" -name '*.hugetune-*.bak') ]] || fail "$name: no backup"
    [[ -f $root/var/lib/hugetune/applied.json ]] || fail "$name: no ledger"

    # Twice: still one token per edited file, same bytes as the golden file.
    expect 0 "$bin" apply --value 32 --root "$root" --regenerate
    check_golden "$name" "$root"
    [[ -z ${regen[$name]} ]] || recorded "${regen[$name]}"
    while IFS= read -r golden; do
        [[ $(token_count "$root/${golden#"$fixtures/golden/$name/"}") -eq 1 ]] ||
            fail "$name: not exactly one token in $golden"
    done < <(find "$fixtures/golden/$name" -type f)

    # Another value, then rollback: back to the files as they were before the first apply.
    expect 0 "$bin" apply --value 48 --root "$root" --no-regenerate
    [[ -z ${regen[$name]} ]] || stdout_has "not run (--no-regenerate)"
    : >"$record"
    expect 0 "$bin" rollback --root "$root" --regenerate
    check_original "$name" "$root"
    # The backups stay, each one named for the operator to remove.
    left=$(grep '^left in place: the backup' "$out") || { cat "$out" >&2; fail "$name: rollback names no backup"; }
    [[ $left == *"; nothing needs "*": remove "*" when you no longer want "* ]] || fail "$name: $left"
    backups=0
    while IFS= read -r backup; do
        [[ $left == *" ${backup#"$root"}"[,\ ]* ]] || fail "$name: rollback does not name ${backup#"$root"}: $left"
        backups=$((backups + 1))
    done < <(find "$root" -name '*.hugetune-*.bak')
    ((backups > 0)) || fail "$name: no backup left to name"
    [[ $(grep -o '\.bak' <<<"$left" | wc -l) -eq $backups ]] || fail "$name: $left"
    [[ ! -e $root/var/lib/hugetune/applied.json ]] || fail "$name: ledger left after rollback"
    [[ -z ${regen_back[$name]} ]] || recorded "${regen_back[$name]}"
    expect 1 "$bin" rollback --root "$root"
    one_error_line
    stderr_has "nothing to roll back"
done

# systemd-boot: the entries of this system get the value, the other installation's entry on
# the same ESP is named and left alone (the golden check above covers the bytes).
root=$work/systemd-boot-esp
expect 0 "$bin" apply --value 32 --root "$root" --dry-run
stderr_has "left as they are: boot entries not named after this system's entry token"
stderr_has "77aa01c2d3e4f5061728394a5b6c7d8e-6.12.40-1-lts.conf"
stdout_has "+++ b/efi/loader/entries/3c9e0f7a1b2d4c6e8f0a2b4c6d8e0f1a-6.16.1-200.fc42.x86_64.conf"

# A kernel installed after apply has the value in its new entry: rollback takes it out there too.
root=$work/systemd-boot-newkernel
cp -a "$fixtures/systemd-boot-esp" "$root"
expect 0 "$bin" apply --value 32 --root "$root"
new_entry=$root/efi/loader/entries/3c9e0f7a1b2d4c6e8f0a2b4c6d8e0f1a-6.17.1-100.fc42.x86_64.conf
printf 'title Fedora Linux 42 (6.17.1)\noptions %s\nlinux /l\n' "$(cat "$root/etc/kernel/cmdline")" >"$new_entry"
expect 0 "$bin" rollback --root "$root"
stderr_has "6.17.1-100.fc42.x86_64.conf was installed after apply with hugepage_alloc_threads=32"
[[ $(token_count "$new_entry") -eq 0 ]] || fail "newkernel: the new entry keeps the value"
check_original systemd-boot-esp "$root"

# Without an entry token or machine id nothing says which entries are this system's: refused
# before anything is written, naming the entries.
root=$work/systemd-boot-notoken
cp -a "$fixtures/systemd-boot-esp" "$root"
rm "$root/etc/machine-id"
before=$(tree_sum "$root")
expect_error 1 "cannot tell which boot entries belong to this system" "$bin" apply --value 8 --root "$root"
stderr_has "/efi/loader/entries/3c9e0f7a1b2d4c6e8f0a2b4c6d8e0f1a-6.16.1-200.fc42.x86_64.conf"
[[ $(tree_sum "$root") == "$before" ]] || fail "notoken: files changed"

# No entry of this system at all: /etc/kernel/cmdline is written, and apply says plainly that
# the next boot does not get the value.
root=$work/systemd-boot-noentry
cp -a "$fixtures/systemd-boot-esp" "$root"
rm "$root"/efi/loader/entries/3c9e0f7a*.conf
expect 1 "$bin" apply --value 8 --root "$root"
stderr_has "hugetune: error: hugepage_alloc_threads=8 is written to the configuration, but not for the next boot: no boot entry of this system"
if grep -q "configured for the next boot" "$out"; then fail "noentry: claims the next boot is configured"; fi
expect 0 "$bin" rollback --root "$root"
cmp -s "$fixtures/systemd-boot-esp/etc/kernel/cmdline" "$root/etc/kernel/cmdline" || fail "noentry: not rolled back"

# Ubuntu cloud image: the drop-in that sets GRUB_CMDLINE_LINUX_DEFAULT is named.
root=$work/ubuntu-cloud
expect 0 "$bin" apply --value 32 --root "$root" --dry-run
stderr_has "GRUB_CMDLINE_LINUX_DEFAULT is set last by /etc/default/grub.d/50-cloudimg-settings.cfg:10"

# RHEL 9 through grub2-mkconfig: the existing grub.cfg, --update-bls-cmdline when offered.
root=$work/rhel-mkconfig
cp -a "$fixtures/rhel9" "$root"
root_tools "$root" grub2-mkconfig
: >"$record"
expect 0 "$bin" apply --value 32 --root "$root" --bootloader grub --regenerate
recorded "grub2-mkconfig [-o] [/boot/grub2/grub.cfg] [--update-bls-cmdline]"
: >"$record"
root_tools "$root" --old-mkconfig grub2-mkconfig  # the root's tool is older now
expect 0 "$bin" rollback --root "$root" --regenerate
recorded "grub2-mkconfig [-o] [/boot/grub2/grub.cfg]"
check_original rhel9 "$root"

# RHEL 9: entries that had different values are each put back with their own.
root=$work/rhel-mixed
cp -a "$fixtures/rhel9" "$root"
root_tools "$root" grubby
entry=$(ls "$root"/boot/loader/entries/*el9_4*.conf)
sed -i 's/ hugepage_alloc_threads=16//' "$entry"
expect 0 "$bin" apply --value 32 --root "$root" --no-regenerate
: >"$record"
expect 0 "$bin" rollback --root "$root" --regenerate
recorded "grubby [--update-kernel=/vmlinuz-5.14.0-427.13.1.el9_4.x86_64] [--remove-args=hugepage_alloc_threads]"
recorded "grubby [--update-kernel=/vmlinuz-5.14.0-503.11.1.el9_5.x86_64] [--args=hugepage_alloc_threads=16]"

# A file edited by someone else after apply: rollback puts the previous value back in place
# and keeps their change.
root=$work/debian-edited
cp -a "$fixtures/debian" "$root"
expect 0 "$bin" apply --value 32 --root "$root" --no-regenerate
sed -i 's/^GRUB_TIMEOUT=5/GRUB_TIMEOUT=7/' "$root/etc/default/grub"
expect 0 "$bin" rollback --root "$root" --no-regenerate
stderr_has "changed since hugetune applied"
sed 's/^GRUB_TIMEOUT=5/GRUB_TIMEOUT=7/' "$fixtures/debian/etc/default/grub" | cmp -s - "$root/etc/default/grub" ||
    fail "in-place rollback did not give the original with the other edit kept"

# Someone set their own value after apply: rollback refuses to put the old one over it (exit 2,
# nothing written), naming both; --force puts it back anyway.
root=$work/debian-own-value
cp -a "$fixtures/debian" "$root"
expect 0 "$bin" apply --value 8 --root "$root" --no-regenerate
sed -i 's/hugepage_alloc_threads=8/hugepage_alloc_threads=24/' "$root/etc/default/grub"
cp "$root/etc/default/grub" "$work/own-value"
expect_error 2 "/etc/default/grub gives the kernel hugepage_alloc_threads=24 now, not the 8 apply wrote" \
    "$bin" rollback --root "$root" --no-regenerate
stderr_has "run 'hugetune rollback --force'"
cmp -s "$work/own-value" "$root/etc/default/grub" || fail "a refused rollback changed the file"
[[ -f $root/var/lib/hugetune/applied.json ]] || fail "a refused rollback removed the ledger"
expect 0 "$bin" rollback --root "$root" --no-regenerate --force
stderr_has "putting it back anyway (--force)"
grep -q "hugepage_alloc_threads=24" "$root/etc/default/grub" && fail "--force kept the value"
# An appended line that sets another value is someone's value too.
root=$work/debian-appended
cp -a "$fixtures/debian" "$root"
expect 0 "$bin" apply --value 8 --root "$root" --no-regenerate
echo 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX hugepage_alloc_threads=12"' >>"$root/etc/default/grub"
expect_error 2 "gives the kernel hugepage_alloc_threads=12 now, not the 8 apply wrote" \
    "$bin" rollback --root "$root" --no-regenerate --dry-run
# The same value written another way the kernel takes alike is not someone else's.
root=$work/kernel-cmdline-plus
cp -a "$fixtures/systemd-boot" "$root"
expect 0 "$bin" apply --value 8 --root "$root" --no-regenerate
sed -i 's/hugepage_alloc_threads=8/hugepage-alloc-threads=+8 quiet/' "$root/etc/kernel/cmdline"
expect 0 "$bin" rollback --root "$root" --no-regenerate
stderr_has "changed since hugetune applied"
# A later occurrence the kernel's handler ignores (0, what kstrtoul refuses, a bare name) leaves
# the kernel the 8 apply wrote (docs/kernel-facts.md "Parsing the value"): nobody's own value.
for added in hugepage_alloc_threads=0 hugepage_alloc_threads=abc hugepage_alloc_threads=-1 \
    hugepage_alloc_threads==4 hugepage_alloc_threads 'hugepage_alloc_threads=1"6"'; do
    root=$work/kernel-cmdline-ignored
    rm -rf "$root"
    cp -a "$fixtures/systemd-boot" "$root"
    expect 0 "$bin" apply --value 8 --root "$root" --no-regenerate
    sed -i "s/hugepage_alloc_threads=8/& $added/" "$root/etc/kernel/cmdline"
    expect 0 "$bin" rollback --root "$root" --no-regenerate
    stderr_has "changed since hugetune applied"
done
# apply 4, a hand edit, apply 8, rollback: the value from before the first apply comes back, the
# hand edit stays, whether it changed another line or hugetune's own value.
for edit in 's/^GRUB_TIMEOUT=5/GRUB_TIMEOUT=7/' 's/hugepage_alloc_threads=4/hugepage_alloc_threads=6/'; do
    root=$work/debian-edited-between
    rm -rf "$root"
    cp -a "$fixtures/debian" "$root"
    sed -i 's/^GRUB_CMDLINE_LINUX="\(.*\)"/GRUB_CMDLINE_LINUX="\1 hugepage_alloc_threads=16"/' \
        "$root/etc/default/grub"
    cp "$root/etc/default/grub" "$work/before-first"
    expect 0 "$bin" apply --value 4 --root "$root" --no-regenerate
    sed -i "$edit" "$root/etc/default/grub"
    expect 0 "$bin" apply --value 8 --root "$root" --no-regenerate
    expect 0 "$bin" rollback --root "$root" --no-regenerate
    stdout_has "rolled back hugepage_alloc_threads=8"
    sed "$edit" "$work/before-first" | sed 's/hugepage_alloc_threads=6/hugepage_alloc_threads=16/' |
        cmp -s - "$root/etc/default/grub" ||
        { diff -u "$work/before-first" "$root/etc/default/grub" >&2; fail "rollback after '$edit': not the value from before the first apply"; }
    [[ ! -e $root/var/lib/hugetune/applied.json ]] || fail "the ledger stayed"
done
root=$work/kernel-cmdline-edited-between
cp -a "$fixtures/systemd-boot" "$root"
expect 0 "$bin" apply --value 4 --root "$root" --no-regenerate
sed -i 's/$/ mitigations=off/' "$root/etc/kernel/cmdline"
expect 0 "$bin" apply --value 8 --root "$root" --no-regenerate
expect 0 "$bin" rollback --root "$root" --no-regenerate
sed 's/$/ mitigations=off/' "$fixtures/systemd-boot/etc/kernel/cmdline" | cmp -s - "$root/etc/kernel/cmdline" ||
    fail "kernel-cmdline: rollback after a hand edit between two applies"
# An indented options line is the entry's options to systemd-boot (docs/kernel-facts.md
# "systemd-boot's entries"): the value goes into it, before its '--', and no second options
# line is added after it, where it would be init's.
root=$work/systemd-boot-indented
cp -a "$fixtures/systemd-boot" "$root"
entry=$root/boot/loader/entries/5a1f9c2e-6.15.2-arch1-1.conf
sed -i 's/^options\(.*\)$/  options\1 -- single/' "$entry"
expect 0 "$bin" apply --value 8 --root "$root" --no-regenerate
[[ $(grep -c 'options' "$entry") == 1 ]] || { cat "$entry" >&2; fail "a second options line was added"; }
grep -q '^  options .* hugepage_alloc_threads=8 -- single$' "$entry" || { cat "$entry" >&2; fail "the value is not in the indented options line, before its --"; }
expect 0 "$bin" rollback --root "$root" --no-regenerate
sed 's/^options\(.*\)$/  options\1 -- single/' "$fixtures/systemd-boot/boot/loader/entries/5a1f9c2e-6.15.2-arch1-1.conf" |
    cmp -s - "$entry" || fail "the indented entry was not rolled back byte for byte"
# --value as the kernel reads it (kstrtoul base 0), written in decimal.
for typed in 0x8 +8 0X8; do
    root=$work/value-$typed
    cp -a "$fixtures/systemd-boot" "$root"
    expect 0 "$bin" apply --value "$typed" --root "$root" --no-regenerate
    grep -qw "hugepage_alloc_threads=8" "$root/etc/kernel/cmdline" || fail "--value $typed not written as 8"
done

# The regenerate tool fails: exit 1 naming it; the configuration stays edited and the ledger
# allows a rollback.
root=$work/debian-fail
cp -a "$fixtures/debian" "$root"
root_tools "$root" update-grub
STANDIN_EXIT=3 expect 1 "$bin" apply --value 32 --root "$root" --regenerate
stderr_has "hugetune: error: chroot $root update-grub failed with exit code 3: stand-in failure"
expect 0 "$bin" rollback --root "$root" --no-regenerate
check_original debian "$root"

# --regenerate on a root without its own tool: refused, naming what is missing; this machine's
# update-grub never runs for it. The configuration is written and the ledger allows a rollback.
root=$work/debian-notool
cp -a "$fixtures/debian" "$root"
: >"$record"
expect 1 "$bin" apply --value 32 --root "$root" --regenerate
stderr_has "--regenerate: $root has no update-grub of its own"
nothing_recorded "debian-notool: this machine's update-grub ran for a --root"
expect 0 "$bin" rollback --root "$root" --no-regenerate
check_original debian "$root"

# A report supplies the value; --value overrides it.
cat >"$work/report.json" <<'JSON'
{"schema_version": 1, "recommendation": {"hugepage_alloc_threads": 24, "kernel_cmdline": "hugepage_alloc_threads=24",
 "predicted_seconds": 0.5}, "kernel": {"release": "6.12.3"}}
JSON
root=$work/debian-report
cp -a "$fixtures/debian" "$root"
expect 0 "$bin" apply --report "$work/report.json" --root "$root" --dry-run
stdout_has '+GRUB_CMDLINE_LINUX="hugepagesz=2M hugepages=65536 hugepage_alloc_threads=24"'
stderr_has "kernel 6.12.3 is older than 6.15"
expect 0 "$bin" apply --report "$work/report.json" --value 8 --root "$root" --dry-run
stdout_has "hugepage_alloc_threads=8\""

# Warnings from the command line being configured.
root=$work/gigantic
cp -a "$fixtures/debian" "$root"
sed -i 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="hugepagesz=1G hugepages=64"/' "$root/etc/default/grub"
expect 0 "$bin" apply --value 8 --root "$root" --dry-run
stderr_has "only gigantic pages"
sed -i 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="hugepages=0:512,1:512"/' "$root/etc/default/grub"
expect 0 "$bin" apply --value 8 --root "$root" --dry-run
stderr_has "node-format hugepages="
echo "apply: ok"
