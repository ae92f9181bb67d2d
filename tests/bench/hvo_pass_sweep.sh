#!/usr/bin/env bash
# The HVO pass on this machine (root; each sweep puts the pools and hugetlb_optimize_vmemmap
# back): sweeps with --sample-mib 512 --repetitions 5, twice at --threads 1,2 and once at 1,2,4,
# each timed, with the grow phase at 1 thread per node as the pass timed it (HVO the other way)
# and as the sweep timed it, and whether `fit` predicts the HVO what-if row. A measurement:
# prints, asserts nothing.
#     usage: tests/bench/hvo_pass_sweep.sh HUGETUNE
set -eu
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[[ -r /proc/sys/vm/hugetlb_optimize_vmemmap ]] || { echo "no HVO on this kernel: nothing measured"; exit 0; }
i=0
for threads in 1,2 1,2 1,2,4; do
    i=$((i + 1))
    start=$(date +%s.%N)
    "$bin" sweep --sample-mib 512 --repetitions 5 --threads "$threads" --out "$work/sweep-$i.json" \
        >/dev/null 2>"$work/err-$i" || { cat "$work/err-$i" >&2; exit 1; }
    end=$(date +%s.%N)
    "$bin" fit --input "$work/sweep-$i.json" --json >"$work/fit-$i.json" 2>"$work/fit-$i.err" || true
    python3 - "$work/sweep-$i.json" "$work/fit-$i.json" "$threads" "$start" "$end" "$work/fit-$i.err" <<'PY'
import json, sys
sweep = json.load(open(sys.argv[1]))
threads, took = sys.argv[3], float(sys.argv[5]) - float(sys.argv[4])
def grow(points):
    for p in points:
        if p["phase"] == "grow" and p["threads_per_node"] == 1:
            s = p["samples_seconds"]
            return f"{min(s) * 1000:.1f}-{max(s) * 1000:.1f} ms ({len(s)})"
    return "-"
hp = sweep.get("hvo_pass", {})
on_in_pass = hp.get("hugetlb_optimize_vmemmap")
row = "-"
try:
    fit = json.load(open(sys.argv[2]))
    for w in fit.get("what_if", []):
        if w.get("parameter") == "hugetlb_free_vmemmap":
            row = "predicted" if w.get("predicted") else "not predicted"
except (ValueError, OSError):
    row = "no fit: " + open(sys.argv[6]).read().strip().splitlines()[-1]
print(f"--threads {threads}: sweep took {took:.1f} s; grow at 1 thread, HVO {'on' if on_in_pass else 'off'} "
      f"(pass): {grow(hp.get('points', []))}; HVO {'off' if on_in_pass else 'on'} (sweep): "
      f"{grow(sweep['points'])}; HVO row: {row}")
PY
done
