# Only one sweep at a time: a second one (and a restore) while a sweep runs is refused with
# exit 5 and a one-line error, and changes nothing (the running sweep's state file stays).
source "$(dirname "$0")/lib/pools.bash"
require_root_hugetlb
set -u
TMP=$(mktemp -d)
trap 'put_back_original; rm -rf "$TMP"' EXIT

before=$(snapshot)
"$HT" sweep --threads 1 --sample-mib 32 --repetitions 1000 --out "$TMP/s.json" \
    >/dev/null 2>"$TMP/first.err" &
FIRST=$!
BG_PIDS+=("$FIRST")
wait_for_file "$STATE"
wait_for_file "$TMP/s.json"
state_before=$(cat "$STATE")

for cmd in "sweep --threads 1 --sample-mib 8 --repetitions 1" "restore"; do
    rc=0
    # shellcheck disable=SC2086
    "$HT" $cmd >"$TMP/out" 2>"$TMP/err" || rc=$?
    [ "$rc" = 5 ] || fail "'$cmd' during a sweep: exit $rc, expected 5; $(cat "$TMP/err")"
    [ "$(wc -l <"$TMP/err")" = 1 ] || fail "'$cmd': expected one line on stderr: $(cat "$TMP/err")"
    grep -q "^hugetune: error: another hugetune sweep or restore is running (pid $FIRST)" "$TMP/err" ||
        fail "'$cmd': unclear error: $(cat "$TMP/err")"
    [ "$(cat "$STATE")" = "$state_before" ] || fail "'$cmd' touched the running sweep's state file"
done
# An ordinary command must not "restore" a live sweep's pools from its state file.
"$HT" probe >/dev/null 2>"$TMP/err" || fail "probe failed during a sweep"
[ -s "$TMP/err" ] && fail "probe during a sweep printed: $(cat "$TMP/err")"
[ -e "$STATE" ] || fail "probe removed a running sweep's state file"
kill -0 "$FIRST" || fail "the first sweep died"

kill -INT "$FIRST"
rc=0
wait "$FIRST" || rc=$?
[ "$rc" = 130 ] || fail "first sweep: exit $rc after SIGINT; $(cat "$TMP/first.err")"
expect_same_as "$before" "after the refused second sweep"
echo "ok"
