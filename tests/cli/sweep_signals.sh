# SIGINT, SIGTERM and SIGHUP during a sweep: pools restored, exit 130, the --out file keeps what
# was measured (complete: false). SIGKILL: the state file stays; `hugetune restore` puts the
# pools back and removes it, and so does the next ordinary command.
source "$(dirname "$0")/lib/pools.bash"
require_root_hugetlb
set -u
TMP=$(mktemp -d)
trap 'put_back_original; rm -rf "$TMP"' EXIT

# Long enough to be caught in the middle: many repetitions of a small sample.
start_sweep() {
    rm -f "$TMP/s.json"
    "$HT" sweep --threads 1,2 --sample-mib 32 --repetitions 1000 --out "$TMP/s.json" \
        >"$TMP/stdout" 2>"$TMP/stderr" &
    SWEEP=$!
    BG_PIDS+=("$SWEEP")
    wait_for_file "$STATE"
    wait_for_file "$TMP/s.json"  # at least one repetition measured
}

for sig in INT TERM HUP; do
    before=$(snapshot)
    start_sweep
    kill -s "$sig" "$SWEEP"
    rc=0
    wait "$SWEEP" || rc=$?
    [ "$rc" = 130 ] || { cat "$TMP/stderr"; fail "SIG$sig: exit $rc, expected 130"; }
    grep -q "hugetune: error: interrupted by SIG$sig; huge page pools restored" "$TMP/stderr" ||
        fail "SIG$sig: no interruption message: $(cat "$TMP/stderr")"
    [ -e "$STATE" ] && fail "SIG$sig: state file left behind"
    expect_same_as "$before" "SIG$sig"
    python3 -c "
import json, sys
d = json.load(open('$TMP/s.json'))
assert d['complete'] is False
assert sum(len(p['samples_seconds']) for p in d['points']) >= 1
" || fail "SIG$sig: --out does not hold the partial sweep"
done

# SIGKILL, then `hugetune restore`.
before=$(snapshot)
start_sweep
kill -KILL "$SWEEP"
wait "$SWEEP" 2>/dev/null
[ -e "$STATE" ] || fail "SIGKILL: the state file is gone"
# The zero phase's pool is held for the whole sweep: the kill left the machine changed.
[ "$(snapshot)" != "$before" ] || fail "SIGKILL: nothing was changed, the test proves nothing"
python3 -c "import json; d=json.load(open('$STATE')); assert d['format']=='hugetune-state'" ||
    fail "SIGKILL: state file unreadable"
"$HT" restore >"$TMP/restore.out" 2>"$TMP/restore.err" || fail "restore failed: $(cat "$TMP/restore.err")"
grep -q "restored huge page pools" "$TMP/restore.out" || fail "restore said: $(cat "$TMP/restore.out")"
[ -e "$STATE" ] && fail "restore left the state file"
expect_same_as "$before" "SIGKILL + restore"
"$HT" restore >"$TMP/restore.out" || fail "a second restore failed"
grep -q "nothing to restore" "$TMP/restore.out" || fail "second restore: $(cat "$TMP/restore.out")"

# SIGKILL, then an ordinary command restores first and says so on stderr.
start_sweep
kill -KILL "$SWEEP"
wait "$SWEEP" 2>/dev/null
[ -e "$STATE" ] || fail "SIGKILL (2): the state file is gone"
"$HT" probe >/dev/null 2>"$TMP/probe.err" || fail "probe failed after SIGKILL"
grep -q "^hugetune: restored huge page pools left by an interrupted sweep" "$TMP/probe.err" ||
    fail "probe did not report the restoration: $(cat "$TMP/probe.err")"
[ -e "$STATE" ] && fail "probe left the state file"
expect_same_as "$before" "SIGKILL + next command"
echo "ok"
