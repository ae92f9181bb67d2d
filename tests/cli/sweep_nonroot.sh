# Not root: sweep and restore fail cleanly with exit 3, one line, nothing changed; the plan
# (--dry-run) needs no root.
source "$(dirname "$0")/lib/pools.bash"
require_root_hugetlb
set -u
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
TMP=$(mktemp -d)
chmod 755 "$TMP"
trap 'put_back_original; rm -rf "$TMP"' EXIT
# A copy nobody can reach, wherever the build directory lives (a clone under /root is not).
cp "$HT" "$TMP/hugetune" && chmod 755 "$TMP/hugetune"
HT=$TMP/hugetune
"${AS_NOBODY[@]}" "$HT" --version >/dev/null 2>&1 || fail "user nobody cannot run $HT"

before=$(snapshot)
for cmd in "sweep --threads 1 --sample-mib 8 --repetitions 1" "restore"; do
    rc=0
    # shellcheck disable=SC2086
    "${AS_NOBODY[@]}" "$HT" $cmd >"$TMP/out" 2>"$TMP/err" || rc=$?
    [ "$rc" = 3 ] || fail "'$cmd' as nobody: exit $rc, expected 3; $(cat "$TMP/err")"
    [ "$(wc -l <"$TMP/err")" = 1 ] || fail "'$cmd': expected one line: $(cat "$TMP/err")"
    grep -q "^hugetune: error: .*needs root" "$TMP/err" || fail "'$cmd': $(cat "$TMP/err")"
    [ -s "$TMP/out" ] && fail "'$cmd' as nobody printed on stdout"
done
[ -e "$STATE" ] && fail "a state file appeared"
expect_same_as "$before" "non-root sweep"
"${AS_NOBODY[@]}" "$HT" sweep --dry-run >"$TMP/out" 2>"$TMP/err" ||
    fail "sweep --dry-run as nobody failed: $(cat "$TMP/err")"
grep -q "^sweep plan:" "$TMP/out" || fail "dry-run printed: $(cat "$TMP/out")"
echo "ok"
