#!/usr/bin/env bash
# apply records its intent (every file, its bytes before and after) in the ledger, synced,
# before the first byte of any boot file changes. A SIGKILL at any file system call of apply
# (each open, openat2, write, fsync, chmod, chown, rename, mkdir and unlink, one run each)
# followed by rollback, or by another apply and then rollback, leaves every boot file byte for
# byte as it was, no ledger and no temporary file.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"
require_command strace "the kill points are strace's signal injection at each call"
# LeakSanitizer cannot run under ptrace: a sanitizer build is traced without it (AddressSanitizer
# itself stays on).
strace() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" command strace "$@"; }
if ! strace -f -qq -o /dev/null -e inject=getpid:error=EPERM true 2>/dev/null; then
    skip "strace cannot inject here (ptrace is not permitted)"
fi

fixture=systemd-boot-esp
calls=(openat openat2 write fsync fchmod fchown rename renameat mkdir mkdirat unlink unlinkat)
apply_args=(--value 8 --no-regenerate)

# How often a whole apply makes each call: the kill points.
root=$work/count
cp -a "$fixtures/$fixture" "$root"
strace -f -qq -c -o "$work/counts" -e trace="$(IFS=,; echo "${calls[*]}")" \
    "$bin" apply --root "$root" "${apply_args[@]}" >/dev/null 2>&1 || fail "a whole apply failed"

# same_as_fixture ROOT WHAT: every file of the fixture is back, byte for byte, and the tree holds
# nothing else but backups (apply keeps them) and the ledger's empty folder.
same_as_fixture() {
    local root=$1 what=$2
    diff -r -x '*.hugetune-*.bak' -x var "$fixtures/$fixture" "$root" >"$work/diff" ||
        { cat "$work/diff" >&2; fail "$what: the tree differs from the fixture"; }
    [[ ! -e $root/var/lib/hugetune/applied.json ]] || fail "$what: the ledger is left"
    if find "$root" -name '.*.tmp.*' | grep -q .; then
        find "$root" -name '.*.tmp.*' >&2
        fail "$what: a temporary file is left"
    fi
}

points=0 completed=0
for call in "${calls[@]}"; do
    count=$(awk -v c="$call" '$NF == c {print $4}' "$work/counts")
    for ((n = 1; n <= ${count:-0}; n++)); do
        root=$work/kill-$call-$n
        cp -a "$fixtures/$fixture" "$root"
        # In a subshell of its own, so that the shell's "Killed" goes nowhere.
        rc=$( (strace -f -qq -o /dev/null -e trace="$call" -e inject="$call":signal=KILL:when=$n \
            "$bin" apply --root "$root" "${apply_args[@]}" >/dev/null 2>&1
        echo $?) 2>/dev/null)
        [[ $rc -eq 137 ]] || fail "$call #$n: apply was not killed (exit $rc)"
        if ((n % 2 == 0)); then
            # Another apply first: it completes the interrupted one, then finds nothing to do.
            expect 0 "$bin" apply --root "$root" "${apply_args[@]}"
        fi
        rc=0
        "$bin" rollback --root "$root" --no-regenerate >"$out" 2>"$err" || rc=$?
        if [[ $rc -ne 0 ]]; then
            # Killed before its intent was recorded: nothing was written, nothing to roll back.
            [[ $rc -eq 1 ]] && grep -q "nothing to roll back" "$err" ||
                { cat "$err" >&2; fail "$call #$n: rollback failed (exit $rc)"; }
        fi
        grep -q "completed hugepage_alloc_threads=8" "$err" && completed=$((completed + 1))
        same_as_fixture "$root" "$call #$n"
        rm -rf "$root"
        points=$((points + 1))
    done
done
# A rollback killed at any call: its ledger goes last, so a second rollback finds the files
# already restored at their original bytes and restores the rest.
applied=$work/applied
cp -a "$fixtures/$fixture" "$applied"
expect 0 "$bin" apply --root "$applied" "${apply_args[@]}"
strace -f -qq -c -o "$work/rollback-counts" -e trace="$(IFS=,; echo "${calls[*]}")" \
    "$bin" rollback --root "$(cp -a "$applied" "$work/rollback-count" && echo "$work/rollback-count")" \
    --no-regenerate >/dev/null 2>&1 || fail "a whole rollback failed"
rollback_points=0
for call in "${calls[@]}"; do
    count=$(awk -v c="$call" '$NF == c {print $4}' "$work/rollback-counts")
    for ((n = 1; n <= ${count:-0}; n++)); do
        root=$work/rollback-kill-$call-$n
        cp -a "$applied" "$root"
        rc=$( (strace -f -qq -o /dev/null -e trace="$call" -e inject="$call":signal=KILL:when=$n \
            "$bin" rollback --root "$root" --no-regenerate >/dev/null 2>&1
        echo $?) 2>/dev/null)
        [[ $rc -eq 137 ]] || fail "rollback $call #$n: not killed (exit $rc)"
        rc=0
        "$bin" rollback --root "$root" --no-regenerate >"$out" 2>"$err" || rc=$?
        [[ $rc -eq 0 ]] || grep -q "nothing to roll back" "$err" ||
            { cat "$err" >&2; fail "rollback $call #$n: the second rollback failed (exit $rc)"; }
        same_as_fixture "$root" "rollback $call #$n"
        rm -rf "$root"
        rollback_points=$((rollback_points + 1))
    done
done
echo "apply_kills: $rollback_points kill points of rollback, each then rolled back again"

# An interrupted apply over a file someone changed since: refused, naming it, nothing written.
root=$work/changed
cp -a "$fixtures/$fixture" "$root"
rc=$( (strace -f -qq -o /dev/null -e trace=renameat -e inject=renameat:signal=KILL:when=3 \
    "$bin" apply --root "$root" "${apply_args[@]}" >/dev/null 2>&1
echo $?) 2>/dev/null)
[[ $rc -eq 137 ]] || fail "apply was not killed at its third rename (exit $rc)"
grep -q '"pending"' "$root/var/lib/hugetune/applied.json" || fail "no pending edit in the ledger"
expect 0 "$bin" rollback --root "$root" --no-regenerate --dry-run
stderr_has "was interrupted while writing; apply or rollback without --dry-run completes it first"
# A dry run beside a real apply or rollback (which holds the tree's lock while its ledger has
# pending files) would take that change for an interrupted one: it waits its turn instead.
python3 -S -c 'import fcntl, os, sys, time
fcntl.flock(os.open(sys.argv[1], os.O_RDONLY), fcntl.LOCK_EX)
time.sleep(30)' "$root" &
holder=$!
track_background "$holder"
for _ in $(seq 50); do ! flock --nonblock "$root" true 2>/dev/null && break; sleep 0.1; done
for command in "rollback" "apply --value 8"; do
    # shellcheck disable=SC2086 # the command's words
    expect_error 5 "another hugetune apply or rollback is changing this system's boot configuration" \
        "$bin" $command --root "$root" --no-regenerate --dry-run
    if grep -q "interrupted" "$err"; then fail "$command --dry-run beside a change: a false interruption"; fi
done
kill "$holder"
wait "$holder" 2>/dev/null || true
echo "# edited by hand" >>"$root/etc/kernel/cmdline"
cp -a "$root" "$work/changed-before"
# The dry run refuses what the real run refuses, and both change nothing.
for mode in --dry-run ""; do
    # shellcheck disable=SC2086 # the mode, or none
    expect_error 1 "/etc/kernel/cmdline holds other bytes than the hugepage_alloc_threads=8" \
        "$bin" rollback --root "$root" --no-regenerate $mode
    # shellcheck disable=SC2086
    expect_error 1 "/etc/kernel/cmdline holds other bytes than the hugepage_alloc_threads=8" \
        "$bin" apply --root "$root" "${apply_args[@]}" $mode
done
# (The killed writer's temporary files go; they were never a boot file.)
diff -r -x '.*.tmp.*' "$work/changed-before" "$root" >/dev/null || fail "a refused completion changed the tree"

((points >= 100)) || fail "only $points kill points; expected at least 100"
echo "apply_kills: $points kill points, $completed interrupted applies completed by rollback"
echo "apply_kills: ok"
