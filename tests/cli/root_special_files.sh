#!/usr/bin/env bash
# A --root tree may hold a FIFO or an endless device where a file belongs: a FIFO ledger, state
# or /proc/cmdline would be waited on, and a copy of /dev/zero read without end. Every command
# that reads a tree (apply with and without --dry-run, rollback, verify, boot-sweep status) opens
# without waiting, refuses what is no regular file with one line naming it, and reads a tree's
# dev/kmsg, which on a real system is a character device, only up to a bound. Each runs under
# `timeout`, so a hang fails the test instead of stalling it.
source "$(dirname "$0")/lib/harness.bash"

fixtures=$src/tests/fixtures/boot
limit=30

# bounded CODE TEXT ARGS...: hugetune ARGS ends within the limit with CODE and, when TEXT is not
# empty, an error line containing it.
bounded() {
    local code=$1 text=$2
    shift 2
    expect "$code" timeout "$limit" "$bin" "$@"
    [[ -z $text ]] || stderr_has "$text"
}

# fresh NAME: a copy of the Debian GRUB fixture with a kernel log, its path printed.
fresh() {
    cp -a "$fixtures/debian" "$work/$1"
    mkdir -p "$work/$1/dev"
    echo 'BOOT_IMAGE=/vmlinuz root=/dev/sda1 hugepage_alloc_threads=8' >"$work/$1/proc/cmdline"
    echo "$work/$1"
}

# --- a FIFO where a file belongs ------------------------------------------------------------
root=$(fresh fifo-cmdline)
rm "$root/proc/cmdline"
mkfifo "$root/proc/cmdline"
bounded 1 "$root/proc/cmdline is a FIFO, where a regular file belongs" verify --root "$root"
: >"$root/dev/kmsg"
for mode in --dry-run --no-regenerate; do
    expect_code=$(timeout "$limit" "$bin" apply --root "$root" --value 4 "$mode" >/dev/null 2>&1; echo $?)
    [[ $expect_code != 124 ]] || fail "apply $mode waited on a FIFO /proc/cmdline"
done

root=$(fresh fifo-ledger)
mkdir -p "$root/var/lib/hugetune"
mkfifo "$root/var/lib/hugetune/applied.json"
for mode in --dry-run --no-regenerate; do
    bounded 1 "applied.json: is not a regular file" apply --root "$root" --value 4 "$mode"
    bounded 1 "applied.json: is not a regular file" rollback --root "$root" "$mode"
done
bounded 1 "applied.json: is not a regular file" verify --root "$root"

root=$(fresh fifo-state)
mkdir -p "$root/var/lib/hugetune"
mkfifo "$root/var/lib/hugetune/boot-sweep.json"
bounded 2 "boot-sweep.json: is not a regular file" boot-sweep status --root "$root"

root=$(fresh fifo-grub)
rm "$root/etc/default/grub"
mkfifo "$root/etc/default/grub"
bounded 2 "/etc/default/grub is not a regular file" apply --root "$root" --value 4 --dry-run

# A FIFO dev/kmsg: read without waiting for a writer, an empty log.
root=$(fresh fifo-kmsg)
mkfifo "$root/dev/kmsg"
bounded 1 "" verify --root "$root"

# --- a copy of /dev/zero where a file belongs, and as the kernel log -------------------------
if ! is_root; then
    echo "note: not root; the copies of /dev/zero (mknod) are not exercised" >&2
    echo "root special files: ok"
    exit 0
fi
root=$(fresh zero-cmdline)
rm "$root/proc/cmdline"
mknod "$root/proc/cmdline" c 1 5
: >"$root/dev/kmsg"
bounded 1 "$root/proc/cmdline is a character device, where a regular file belongs" verify --root "$root"
for mode in --dry-run --no-regenerate; do
    expect_code=$(timeout "$limit" "$bin" apply --root "$root" --value 4 "$mode" >/dev/null 2>&1; echo $?)
    [[ $expect_code != 124 ]] || fail "apply $mode read a /dev/zero /proc/cmdline without end"
done

# dev/kmsg as a character device (a real system's is one) that never ends: read up to the bound.
root=$(fresh zero-kmsg)
mknod "$root/dev/kmsg" c 1 5
bounded 1 "" verify --root "$root"

root=$(fresh zero-ledger)
mkdir -p "$root/var/lib/hugetune"
mknod "$root/var/lib/hugetune/applied.json" c 1 5
for mode in --dry-run --no-regenerate; do
    bounded 1 "applied.json: is not a regular file" rollback --root "$root" "$mode"
done

echo "root special files: ok"
