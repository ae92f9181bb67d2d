#!/usr/bin/env bash
# The sweep's own timing model (tuner/sweep/plan.cpp estimate_seconds, the plan's "about N s")
# for a fixed count of 5 against the adaptive rule's bounds, on the fixture trees of a 4-node
# server and of this 2-CPU VM: every point settled after the first 3 rounds (the least it
# measures), and the cost of a further round of alloc and zero at two counts per node (what two
# open candidates of each phase add). Plans only, nothing measured; the model's estimate is a
# rough upper one.
#     usage: tests/bench/sweep_estimate.sh HUGETUNE [SOURCE_DIR, default .]
set -eu
bin=$1
src=${2:-.}
estimate() {
    "$bin" sweep --dry-run --root "$src/tests/fixtures/$1" --json "${@:2}" |
        python3 -c 'import json, sys; d = json.load(sys.stdin); print("%d timed repetitions, %.1f s" % (d["timed_repetitions"], d["estimated_seconds"]))'
}
for fixture in skylake-4node vm-1node; do
    echo "$fixture: fixed count 5: $(estimate $fixture --repetitions 5)"
    echo "$fixture: every point settled after the first rounds (3): $(estimate $fixture --repetitions 3)"
done
two=(--threads 1,2 --phases alloc,zero --no-hvo-pass)
echo "skylake-4node: alloc and zero at 1,2 per node, 3 repetitions: $(estimate skylake-4node "${two[@]}" --repetitions 3)"
echo "skylake-4node: alloc and zero at 1,2 per node, 1 repetition: $(estimate skylake-4node "${two[@]}" --repetitions 1)"
