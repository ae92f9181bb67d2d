#!/usr/bin/env bash
# The sweep's own timing model (tuner/sweep/plan.cpp estimate_seconds, the plan's "about N s")
# for a fixed count of 5 against the adaptive rule's bounds, on the fixture trees of a 4-node
# server and of this 2-CPU VM. The rule times every point once, then the candidates (alloc and
# zero at the counts that fit in a node's hardware threads) a second time, and only the open
# ones after that. A round of some points is the plan of those points at 2 repetitions less the
# plan at 1, so that what a plan spends once (growing the zero pool) cancels. Plans only,
# nothing measured; the model's estimate is a rough upper one.
#     usage: tests/bench/sweep_estimate.sh HUGETUNE [SOURCE_DIR, default .]
set -eu
bin=$1
src=${2:-.}
estimate() {
    "$bin" sweep --dry-run --root "$src/tests/fixtures/$1" --json "${@:2}" |
        python3 -c 'import json, sys; d = json.load(sys.stdin); print("%d timed repetitions, %.1f s" % (d["timed_repetitions"], d["estimated_seconds"]))'
}
plural() { [[ $1 == 1 ]] || echo s; }
candidates=(--phases alloc,zero --no-hvo-pass)
for fixture in skylake-4node vm-1node; do
    echo "$fixture: fixed count 5: $(estimate $fixture --repetitions 5)"
    echo "$fixture: every point once: $(estimate $fixture --repetitions 1)"
    [[ $fixture == vm-1node ]] && counts=1,2 || counts=1,2,4,8,16,32
    for r in 1 2; do
        echo "$fixture: alloc and zero at $counts per node, $r repetition$(plural $r): $(estimate $fixture "${candidates[@]}" --threads $counts --repetitions $r)"
    done
done
for r in 1 2; do
    echo "skylake-4node: alloc and zero at 1,2 per node, $r repetition$(plural $r): $(estimate skylake-4node "${candidates[@]}" --threads 1,2 --repetitions $r)"
done
