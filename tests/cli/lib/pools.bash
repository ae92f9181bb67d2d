# Shared by the sweep tests (sourced; not a test itself). Saves every huge page pool value,
# puts them back on exit whatever happens, and compares snapshots.

HT=$1
SRC=$2
STATE=/run/hugetune/state.json

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

require_root_hugetlb() {
    [ "$(id -u)" = 0 ] || skip "needs root to change huge page pools"
    [ -d /sys/kernel/mm/hugepages ] || skip "this kernel has no hugetlb (/sys/kernel/mm/hugepages missing)"
}

# Every value a sweep could disturb, global and per node, one "path value" per line.
snapshot() {
    local f
    for f in /sys/kernel/mm/hugepages/*/nr_hugepages /sys/kernel/mm/hugepages/*/nr_overcommit_hugepages \
             /sys/kernel/mm/hugepages/*/free_hugepages /sys/kernel/mm/hugepages/*/surplus_hugepages \
             /sys/kernel/mm/hugepages/*/resv_hugepages \
             /sys/devices/system/node/node*/hugepages/*/nr_hugepages \
             /sys/devices/system/node/node*/hugepages/*/free_hugepages \
             /sys/devices/system/node/node*/hugepages/*/surplus_hugepages; do
        [ -r "$f" ] && echo "$f $(cat "$f")"
    done
}

ORIGINAL=$(snapshot)
BG_PIDS=()

put_back_original() {
    local pid
    for pid in "${BG_PIDS[@]}"; do
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    [ -e "$STATE" ] && "$HT" restore >/dev/null 2>&1
    # Overcommit first, then per-node pools, then the global pool (as the tool does); only
    # values that differ (the kernel refuses some writes, e.g. overcommit of gigantic pages).
    local pattern
    for pattern in nr_overcommit_hugepages '/node/node.*/nr_hugepages' \
                   '^/sys/kernel/mm/hugepages/.*/nr_hugepages'; do
        echo "$ORIGINAL" | grep -- "$pattern" | while read -r f v; do
            [ "$(cat "$f")" = "$v" ] || echo "$v" >"$f"
        done
    done
    rm -f "$STATE"
}
trap put_back_original EXIT

expect_same_as() {
    local want=$1 what=$2 now
    now=$(snapshot)
    if [ "$now" != "$want" ]; then
        diff <(echo "$want") <(echo "$now") >&2
        fail "$what: huge page values differ from before"
    fi
}

# Waits until the file exists (a sweep has started changing things), up to 20 s.
wait_for_file() {
    local i
    for i in $(seq 200); do
        [ -s "$1" ] && return 0
        sleep 0.1
    done
    fail "timed out waiting for $1"
}
