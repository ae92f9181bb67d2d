#!/usr/bin/env bash
# A dry run of apply or rollback on the running machine never shows half of a real change that
# begins beside it (tuner/boot/boot_lock.hpp run_boot_steps_locked). Before any apply or rollback
# since boot there is no /run/hugetune/boot.lock and a dry run, making no file, holds no lock; a
# real change creates the file before its first write. Each dry run here is held
# (HUGETUNE_TEST_HOLD, "dry-run-read") once it has read, while the test plays the change that
# begins: the lock file made and held, the dry run says the change is running (exit 5); the
# file made and free, the dry run reads again, under the lock, and prints its plan once.
source "$(dirname "$0")/lib/harness.bash"
require_root "the lock file is /run/hugetune/boot.lock"
require_command flock "the change beside the dry run holds the lock with flock (util-linux)"
lock=/run/hugetune/boot.lock
[[ ! -e $lock ]] ||
    skip "$lock exists: an apply or rollback ran on this machine since boot, and every dry run takes that lock"
hold=$work/hold
# The test makes the file; it removes it, and the folder if it made that too.
made_dir=0
[[ -d /run/hugetune ]] || made_dir=1
at_exit "rm -f $lock; ((made_dir)) && rmdir /run/hugetune 2>/dev/null; true"

# held_dry_run NAME ARGS...: starts `hugetune ARGS --dry-run` asked to hold at dry-run-read and
# waits until it holds; $dry is its PID.
held_dry_run() {
    local name=$1
    shift
    echo dry-run-read >"$hold"
    chmod 600 "$hold"
    HUGETUNE_TEST_HOLD=$hold "$bin" "$@" --dry-run >"$work/$name.out" 2>"$work/$name.err" &
    dry=$!
    track_background "$dry"
    wait_held "$hold" dry-run-read "$dry" "$work/$name.err"
}

# finish: lets the held dry run go on; $rc is its exit status.
finish() {
    echo release >"$hold"
    rc=0
    wait "$dry" || rc=$?
}

for command in "apply --value 8 --no-regenerate" "rollback --no-regenerate"; do
    read -ra args <<<"$command"
    name=${args[0]}
    # Alone: what a dry run of this machine says, lock file or not (the machine may have no boot
    # configuration hugetune knows, or nothing to roll back: the same answer either way).
    rc_alone=0
    "$bin" "${args[@]}" --dry-run >"$work/$name-alone.out" 2>"$work/$name-alone.err" || rc_alone=$?
    [[ ! -e $lock ]] || fail "$name: a dry run made $lock"

    # A change begins while the dry run reads: the lock file made and held.
    held_dry_run "$name-busy" "${args[@]}"
    mkdir -p /run/hugetune
    flock -o "$lock" sleep 600 &
    holder=$!
    track_background "$holder"
    # flock holds the lock itself (-o); its sleep ends here or, on a failure, at exit.
    at_exit "pkill -P $holder sleep 2>/dev/null; true"
    for _ in $(seq 100); do flock -n "$lock" true 2>/dev/null || break; sleep 0.1; done
    ! flock -n "$lock" true || fail "$name: flock did not take $lock"
    finish
    [[ $rc -eq 5 ]] || { cat "$work/$name-busy.err" >&2; fail "$name: a dry run beside a change exited $rc, not 5"; }
    grep -qF "is locked" "$work/$name-busy.err" ||
        { cat "$work/$name-busy.err" >&2; fail "$name: the busy dry run did not say the lock is held"; }
    pkill -P "$holder" sleep
    wait "$holder" 2>/dev/null || true
    rm -f "$lock"

    # The file appears (a change began and ended) while the dry run reads: it reads again under
    # the lock and says what it says alone, once.
    held_dry_run "$name-again" "${args[@]}"
    mkdir -p /run/hugetune
    : >"$lock"
    finish
    [[ $rc -eq $rc_alone ]] ||
        { cat "$work/$name-again.err" >&2; fail "$name: read again, the dry run exited $rc, alone $rc_alone"; }
    diff "$work/$name-alone.out" "$work/$name-again.out" >&2 ||
        fail "$name: read again, the dry run printed another plan than alone (or printed it twice)"
    diff "$work/$name-alone.err" "$work/$name-again.err" >&2 ||
        fail "$name: read again, the dry run's diagnostics differ from alone"
    rm -f "$lock"
    echo "$name --dry-run: busy beside a held lock, read again once the lock file appeared (exit $rc_alone)"
done
echo "dry runs beside a change: all passed"
