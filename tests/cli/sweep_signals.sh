#!/usr/bin/env bash
# SIGINT, SIGTERM and SIGHUP during a sweep: pools restored, exit 130, the --out file keeps what
# was measured (complete: false) and still validates against the sweep schema. SIGKILL: the
# state file stays; `hugetune restore` puts the pools back and removes it, and so does the next
# command that uses the pools (probe, sweep, run, boot-sweep); fit, fleet, apply, verify and any
# --help, --dry-run or --root leave it.
source "$(dirname "$0")/lib/harness.bash"
use_pools

# Long enough to be caught in the middle: many repetitions of a small sample.
start_sweep() {
    rm -f "$work/s.json"
    "$bin" sweep --threads 1,2 --sample-mib 32 --repetitions 1000 --out "$work/s.json" \
        >"$work/stdout" 2>"$work/stderr" &
    sweep=$!
    track_background "$sweep"
    wait_for_file "$state_file"
    wait_for_file "$work/s.json"  # at least one repetition measured
}

for sig in INT TERM HUP; do
    before=$(pool_snapshot)
    start_sweep
    kill -s "$sig" "$sweep"
    rc=0
    wait "$sweep" || rc=$?
    [[ $rc -eq 130 ]] || { cat "$work/stderr" >&2; fail "SIG$sig: exit $rc, expected 130"; }
    grep -q "hugetune: error: interrupted by SIG$sig; huge page pools restored" "$work/stderr" ||
        fail "SIG$sig: no interruption message: $(cat "$work/stderr")"
    [[ ! -e $state_file ]] || fail "SIG$sig: state file left behind"
    expect_pools "$before" "SIG$sig"
    python3 -S - "$work/s.json" <<'PY' || fail "SIG$sig: --out does not hold the partial sweep"
import json, sys
d = json.load(open(sys.argv[1]))
assert d['complete'] is False
assert sum(len(p['samples_seconds']) for p in d['points']) >= 1
PY
    validate_schema sweep.schema.json "$work/s.json"
done

# SIGKILL, then `hugetune restore`.
before=$(pool_snapshot)
start_sweep
kill -KILL "$sweep"
wait "$sweep" 2>/dev/null || true
[[ -e $state_file ]] || fail "SIGKILL: the state file is gone"
# The zero phase's pool is held for the whole sweep: the kill left the machine changed.
[[ $(pool_snapshot) != "$before" ]] || fail "SIGKILL: nothing was changed, the test proves nothing"
python3 -S -c "import json, sys; d=json.load(open(sys.argv[1])); assert d['format']=='hugetune-state'" \
    "$state_file" || fail "SIGKILL: state file unreadable"
# Commands that do not use the pools leave the state for restore, and so does any --help,
# --dry-run or --root (they must not change the machine).
killed_pools=$(pool_snapshot)
for command in "sweep --help" "probe -h" "fit --help" "fleet --help" "verify --help" \
    "apply --help" "sweep --dry-run" "probe --root $src/tests/fixtures/vm-1node" \
    "sweep --dry-run --root=$src/tests/fixtures/vm-1node"; do
    read -ra words <<<"$command"
    expect 0 "$bin" "${words[@]}"
    [[ -e $state_file ]] || fail "'$command' restored the pools (the state file is gone)"
done
expect 2 "$bin" fit "$work/missing.csv"
expect 2 "$bin" cmdline --report "$work/missing.json"
[[ -e $state_file && $(pool_snapshot) == "$killed_pools" ]] ||
    fail "a command that does not use the pools restored them"
expect 0 "$bin" restore
stdout_has "restored huge page pools"
[[ ! -e $state_file ]] || fail "restore left the state file"
expect_pools "$before" "SIGKILL + restore"
expect 0 "$bin" restore
stdout_has "nothing to restore"

# SIGKILL, then an ordinary command restores first and says so on stderr.
start_sweep
kill -KILL "$sweep"
wait "$sweep" 2>/dev/null || true
[[ -e $state_file ]] || fail "SIGKILL (2): the state file is gone"
expect 0 "$bin" probe
stderr_matches "^hugetune: restored huge page pools left by an interrupted sweep"
[[ ! -e $state_file ]] || fail "probe left the state file"
expect_pools "$before" "SIGKILL + next command"
echo "sweep_signals: ok"
