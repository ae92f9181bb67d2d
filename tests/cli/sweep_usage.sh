# Bad sweep options: exit 2, one line naming the option, nothing changed. A kernel without
# hugetlb: exit 4 (shown on a gathered tree with the hugetlb files removed, and on the live
# kernel when it really lacks them).
HT=$1
SRC=$2
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SKY="$SRC/tests/fixtures/skylake-4node"

expect() {  # expect CODE PATTERN ARGS...
    local want=$1 pattern=$2 rc=0
    shift 2
    "$HT" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
    [ "$rc" = "$want" ] || fail "'$*': exit $rc, expected $want; $(cat "$TMP/err")"
    if [ "$want" != 0 ]; then
        [ "$(wc -l <"$TMP/err")" = 1 ] || fail "'$*': expected one line: $(cat "$TMP/err")"
        grep -q -- "^hugetune: error: .*$pattern" "$TMP/err" || fail "'$*': $(cat "$TMP/err")"
    fi
}

D=(sweep --dry-run --root "$SKY")
expect 2 "--threads" "${D[@]}" --threads 0
expect 2 "--threads" "${D[@]}" --threads 1,x
expect 2 "--phases" "${D[@]}" --phases alloc,frob
expect 2 "--page-size" "${D[@]}" --page-size 16M
expect 2 "--page-size" "${D[@]}" --page-size lots
expect 2 "--sample-mib" "${D[@]}" --page-size 1G --sample-mib 1000
expect 2 "--repetitions" "${D[@]}" --repetitions 0
expect 2 "--max-memory-fraction" "${D[@]}" --max-memory-fraction 2
expect 2 "--sample-mib: 200000 MiB per node .*; use 73728 or less" "${D[@]}" --sample-mib 200000
expect 2 "--root" sweep --root "$SKY"
expect 2 "unknown option" sweep --frobnicate
expect 0 "" "${D[@]}" --threads 1,64 --json
python3 -c "
import json
d = json.load(open('$TMP/out'))
assert [p['oversubscribed'] for p in d['points'] if p['phase'] == 'zero'] == [False, True], d['points']
" || fail "dry-run JSON"

# No hugetlb in the kernel of a gathered tree: exit 4.
cp -r "$SKY" "$TMP/nohugetlb"
rm -rf "$TMP/nohugetlb/sys/kernel/mm/hugepages" "$TMP"/nohugetlb/sys/devices/system/node/node*/hugepages
expect 4 "no hugetlb support" sweep --dry-run --root "$TMP/nohugetlb"

if [ "$(id -u)" = 0 ]; then
    source "$(dirname "$0")/lib/pools.bash" "$HT" "$SRC"
    trap 'put_back_original; rm -rf "$TMP"' EXIT
    if [ ! -d /sys/kernel/mm/hugepages ]; then
        expect 4 "no hugetlb support" sweep --threads 1
        echo "SKIP: this kernel has no hugetlb; only the refusal (exit 4) was checked"
        exit 77
    fi
    before=$(snapshot)
    expect 2 "--out: directory" sweep --threads 1 --sample-mib 8 --repetitions 1 --out /nonexistent/dir/s.json
    expect 2 "--sample-mib" sweep --threads 1 --sample-mib 100000000
    [ -e "$STATE" ] && fail "a refused sweep left a state file"
    expect_same_as "$before" "refused sweeps"
fi
echo "ok"
