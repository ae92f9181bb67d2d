#!/usr/bin/env bash
# Two boot lab runs, kept apart. The tuning run (tests/vm/findings/accuracy-2026-12-01), the one
# the cost basis was corrected on: `hugetune fit` on its guests' sweeps, against the kernel's own
# "allocation took" figures from boots of the same guests (memory backed on the host before boot):
# at 1 thread the prediction is within 0.85-1.15 of the median boot with init_on_alloc on and
# off, and at 2 threads within 0.7-1.3 (the emulator's 2-thread boot scales less than the sweep).
# The alloc phase alone predicted 1.85x with init_on_alloc on, and alloc minus zero 10.6x at 2
# threads with it off.
source "$(dirname "$0")/lib/harness.bash"
require_command python3 "it reads the JSON output"

findings=$src/tests/vm/findings/accuracy-2026-12-01
for setting in 1 0; do
    "$bin" fit --input "$findings/sweep-init_on_alloc$setting-prealloc.json" --json \
        >"$work/fit-$setting.json" 2>"$work/fit-$setting.err" ||
        fail "fit on the init_on_alloc=$setting guest sweep failed: $(cat "$work/fit-$setting.err")"
done
python3 -S - "$work" "$findings/measurements.tsv" <<'PY'
import json, statistics, sys
work, table = sys.argv[1], sys.argv[2]
boots = {}
for line in open(table):
    setting, backing, threads, ms = line.split()
    if backing == "prealloc":
        boots.setdefault((setting, int(threads)), []).append(int(ms))
bounds = {1: (0.85, 1.15), 2: (0.7, 1.3)}
for setting, curve in (("1", "alloc_zeroed_once"), ("0", "alloc_only")):
    fit = json.load(open(f"{work}/fit-{setting}.json"))
    assert fit["model"]["curve"] == curve, (setting, fit["model"]["curve"])
    predicted = {p["hugepage_alloc_threads"]: p["seconds"] * 1000 for p in fit["predictions"]}
    for threads, (low, high) in bounds.items():
        ratio = predicted[threads] / statistics.median(boots[(setting, threads)])
        assert low <= ratio <= high, (setting, threads, ratio)
PY

# The tuning run's table recomputes exactly from its stored sweeps (`fit` as it is now, in place of
# the guests' reports) and boots. The documents' figures of every lab run (the README's tables,
# tests/vm/README.md's rows) are the registry's (docs/figures, the test `figures`).
tuning=$src/tests/vm/findings/accuracy-2026-12-01
mkdir -p "$work/tuning"
for setting in 1 0; do
    for memory in prealloc lazy; do
        "$bin" fit --input "$tuning/sweep-init_on_alloc$setting-$memory.json" --json >"$work/tuning/fit.json" 2>/dev/null ||
            fail "fit on the tuning run's init_on_alloc=$setting $memory sweep failed"
        python3 -S -c 'import json, sys; f = json.load(open(sys.argv[1])); json.dump({"fit": f, "recommendation": f["recommendation"]}, open(sys.argv[2], "w"))' \
            "$work/tuning/fit.json" "$work/tuning/predict-$setting-$memory.json"
    done
done
python3 "$src/tests/vm/lib/accuracy_table.py" "$work/tuning" "$tuning/measurements.tsv" 1 0 >"$work/tuning-table.md"
diff "$work/tuning-table.md" "$tuning/table.md" >&2 || fail "the tuning run's table.md differs from its data"

# The what-if runs' tables recompute from their stored sweeps and boots (`fit --boot-sweep` as it
# is now). The run of 2026-12-02 was tabled by the model before the HVO row's fix: its two HVO
# rows are the only ones that differ.
for run in whatif-2026-12-02 whatif-2026-12-03; do
    found=$src/tests/vm/findings/$run
    mkdir -p "$work/$run"
    settings=()
    for setting in 1 0; do
        [[ -f $found/sweep-init_on_alloc$setting.json ]] || continue
        settings+=("$setting")
        "$bin" fit --input "$found/sweep-init_on_alloc$setting.json" --boot-sweep "$found/whatif-boots.json" \
            --json >"$work/$run/whatif-predict-$setting-fit.json" 2>/dev/null ||
            fail "$run: fit --boot-sweep on init_on_alloc=$setting failed"
    done
    python3 "$src/tests/vm/lib/whatif_table.py" "$work/$run" "$found/whatif-boots.tsv" "${settings[@]}" |
        grep -v '^<!--' >"$work/$run/table.md" || fail "$run: the table cannot be recomputed"
    grep -v '^<!--' "$found/table.md" >"$work/$run/stored.md"
    changed=$(diff "$work/$run/stored.md" "$work/$run/table.md" | grep -c '^>' || true)
    if [[ $run == whatif-2026-12-02 ]]; then
        [[ $changed -eq 2 ]] && ! diff "$work/$run/stored.md" "$work/$run/table.md" | grep '^[<>]' |
            grep -qv 'init_on_alloc=0 hugetlb_free_vmemmap=on | [12] | hugetlb_free_vmemmap=on' ||
            fail "$run: rows other than the two HVO rows changed: $(diff "$work/$run/stored.md" "$work/$run/table.md")"
    else
        [[ $changed -eq 0 ]] || fail "$run: table.md differs from its data: $(diff "$work/$run/stored.md" "$work/$run/table.md")"
    fi
done

# The check run (tests/vm/findings/accuracy-2026-12-03), made after that correction with the
# same code and never used to change it: its stored table recomputes exactly from its stored
# reports and boots. Today's model on its sweeps, and which bands it misses, are the registry's
# figures (docs/figures/fig_lab.py), which the README states first in its accuracy section.
check=$src/tests/vm/findings/accuracy-2026-12-03
python3 "$src/tests/vm/lib/accuracy_table.py" "$check" "$check/measurements.tsv" 1 0 >"$work/check-table.md" ||
    fail "the check run's table cannot be recomputed"
diff "$work/check-table.md" "$check/table.md" >&2 || fail "the check run's table.md differs from its data"
