#!/usr/bin/env bash
# Bad sweep options: exit 2, one line naming the option, nothing changed. A kernel without
# hugetlb: exit 4 (shown on a gathered tree with the hugetlb files removed, and on the live
# kernel when it really lacks them).
source "$(dirname "$0")/lib/harness.bash"
sky=$src/tests/fixtures/skylake-4node

dry=("$bin" sweep --dry-run --root "$sky")
expect_error 2 "--threads" "${dry[@]}" --threads 0
expect_error 2 "--threads" "${dry[@]}" --threads 1,x
expect_error 2 "--phases" "${dry[@]}" --phases alloc,frob
expect_error 2 "--page-size" "${dry[@]}" --page-size 16M
expect_error 2 "--page-size" "${dry[@]}" --page-size lots
expect_error 2 "--sample-mib" "${dry[@]}" --page-size 1G --sample-mib 1000
expect_error 2 "--repetitions" "${dry[@]}" --repetitions 0
expect_error 2 "--max-memory-fraction" "${dry[@]}" --max-memory-fraction 2
expect_error 2 "--budget: give a positive number of seconds" "${dry[@]}" --budget 0
expect_error 2 "--budget: give a positive number of seconds" "${dry[@]}" --budget 10s
expect_error 2 "--budget: bounds the adaptive rule" "${dry[@]}" --budget 10 --repetitions 3
expect 0 "${dry[@]}" --budget 10
stdout_has "1 to 5 repetitions (adaptive: more only where the decision is still open, within a budget of 10.0 s)"
expect_error 2 "--sample-mib: 200000 MiB per node" "${dry[@]}" --sample-mib 200000
stderr_has "; use 73728 or less"
expect_error 2 "--root" "$bin" sweep --root "$sky"
expect_error 2 "unknown option" "$bin" sweep --frobnicate
expect 0 "${dry[@]}" --threads 1,64 --json
python3 -S - "$out" <<'PY' || fail "dry-run JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert [p['oversubscribed'] for p in d['points'] if p['phase'] == 'zero'] == [False, True], d['points']
PY

# No hugetlb in the kernel of a gathered tree: exit 4.
cp -r "$sky" "$work/nohugetlb"
rm -rf "$work/nohugetlb/sys/kernel/mm/hugepages" "$work"/nohugetlb/sys/devices/system/node/node*/hugepages
expect_error 4 "no hugetlb support" "$bin" sweep --dry-run --root "$work/nohugetlb"

if is_root; then
    if [[ ! -d /sys/kernel/mm/hugepages ]]; then
        expect_error 4 "no hugetlb support" "$bin" sweep --threads 1
        skip "this kernel has no hugetlb; only the refusal (exit 4) was checked"
    fi
    use_pools
    expect_error 2 "--out: directory" "$bin" sweep --threads 1 --sample-mib 8 --repetitions 1 --out /nonexistent/dir/s.json
    expect_error 2 "--sample-mib" "$bin" sweep --threads 1 --sample-mib 100000000
    [[ ! -e $state_file ]] || fail "a refused sweep left a state file"
    expect_pools "$original_pools" "refused sweeps"
fi
echo "sweep_usage: ok"
