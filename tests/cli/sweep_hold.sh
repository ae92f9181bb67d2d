#!/usr/bin/env bash
# A sweep held at the moment its grow phase has raised the pools (HUGETUNE_TEST_HOLD,
# tuner/system/test_hold.hpp), killed there by SIGKILL: the pools stay raised, the state file
# names them, and `restore` puts every value back. One attempt: a hold, not a race against a
# repetition that lasts milliseconds. The hold is refused when anyone else could have asked for
# it (a symlink, a file others can write), and for another point.
source "$(dirname "$0")/lib/harness.bash"
use_pools
hold=$work/hold
sweep_args=(sweep --threads 1 --repetitions 1 --sample-mib 32 --phases grow --out "$work/s.json")

# held_sweep: starts a sweep asked to hold at grow-raised and waits until it says it holds.
held_sweep() {
    echo grow-raised >"$hold"
    chmod 600 "$hold"
    HUGETUNE_TEST_HOLD=$hold "$bin" "${sweep_args[@]}" >"$work/stdout" 2>"$work/stderr" &
    sweep=$!
    track_background "$sweep"
    wait_held "$hold" grow-raised "$sweep" "$work/stderr"
}

before=$(pool_snapshot)
held_sweep
[[ $(pool_snapshot) != "$before" ]] || fail "held at grow-raised, yet the pools are as they were"
raised=$(cat /proc/sys/vm/nr_hugepages)
kill -KILL "$sweep"
wait "$sweep" 2>/dev/null || true
[[ $(pool_snapshot) != "$before" ]] || fail "the kill left nothing to restore"
[[ -e $state_file ]] || fail "the killed sweep left no state file"
expect 0 "$bin" restore
stdout_has "restored huge page pools"
expect_pools "$before" "SIGKILL at grow-raised + restore"
echo "held at grow-raised with nr_hugepages $raised, killed, restored"

# Not honoured: each of these sweeps runs to its end (a hold would sleep 600 s; `timeout` makes
# that a failure here, not a hang) and leaves the file as it was.
not_held() {
    local what=$1
    shift
    local rc=0
    HUGETUNE_TEST_HOLD=$hold timeout 120 "$bin" "${sweep_args[@]}" >"$work/stdout" \
        2>"$work/stderr" || rc=$?
    [[ $rc -eq 0 ]] || { cat "$work/stderr" >&2; fail "$what: the sweep exited $rc (held?)"; }
    expect_pools "$before" "$what"
    echo "not held: $what"
}
echo grow-raised >"$hold"
chmod 666 "$hold"
not_held "a file others can write"
[[ $(cat "$hold") == grow-raised ]] || fail "a file others can write was written: $(cat "$hold")"
chmod 600 "$hold"
mv "$hold" "$work/target"
ln -s "$work/target" "$hold"
not_held "a symlink to a file of ours"
[[ $(cat "$work/target") == grow-raised ]] || fail "the symlink's target was written"
rm "$hold"
echo zero-raised >"$hold"
chmod 600 "$hold"
not_held "another point's name"
rm "$hold"
not_held "no file"
echo grow-raised >"$hold"
chown 65534 "$hold"
chmod 600 "$hold"
not_held "a file another user owns"
echo "sweep_hold: ok"
