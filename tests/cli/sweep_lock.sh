#!/usr/bin/env bash
# Only one sweep at a time: a second one (and a restore) while a sweep runs is refused with
# exit 5 and a one-line error, and changes nothing (the running sweep's state file stays).
source "$(dirname "$0")/lib/harness.bash"
use_pools

"$bin" sweep --threads 1 --sample-mib 32 --repetitions 1000 --out "$work/s.json" \
    >/dev/null 2>"$work/first.err" &
first=$!
track_background "$first"
wait_for_file "$state_file"
wait_for_file "$work/s.json"
state_before=$(cat "$state_file")

for cmd in "sweep --threads 1 --sample-mib 8 --repetitions 1" "restore"; do
    # shellcheck disable=SC2086
    expect_error 5 "another hugetune sweep or restore is running (pid $first)" "$bin" $cmd
    [[ $(cat "$state_file") == "$state_before" ]] || fail "'$cmd' touched the running sweep's state file"
done
# An ordinary command must not "restore" a live sweep's pools from its state file.
expect 0 "$bin" probe
stderr_empty
[[ -e $state_file ]] || fail "probe removed a running sweep's state file"
kill -0 "$first" || fail "the first sweep died"

kill -INT "$first"
rc=0
wait "$first" || rc=$?
[[ $rc -eq 130 ]] || fail "first sweep: exit $rc after SIGINT; $(cat "$work/first.err")"
expect_pools "$original_pools" "after the refused second sweep"
echo "sweep_lock: ok"
