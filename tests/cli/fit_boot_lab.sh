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
# the guests' reports) and boots, and the README's table of it gives the same predicted and
# measured times, ranges and ratios: neither can be edited by hand away from the data.
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
python3 -S - "$work/tuning-table.md" "$src/README.md" <<'PY' || fail "the README's table of the tuning run differs from its data"
import re, sys
table, readme = open(sys.argv[1]).read(), open(sys.argv[2]).read()
want = {}
for row in table.splitlines()[2:]:
    ioa, memory, _, t, predicted, measured, ratio = [c.strip() for c in row.strip("|").split("|")][:7]
    median, runs = re.fullmatch(r"(\d+) \((.*)\)", measured).groups()
    runs = [int(x) for x in runs.split(", ")]
    want[(ioa, memory, t)] = f"{predicted} ms | {median} ms ({min(runs)}-{max(runs)}) | {ratio}"
section = readme[readme.index("| init_on_alloc | host memory | T | predicted |"):]
rows = re.findall(r"^\| ([01]) \| (prealloc|lazy) \| ([12]) \| (\d+ ms) \| (\d+ ms \(\d+-\d+\)) \| \**([0-9.]+)\** \|", section, re.M)
assert len(rows) == len(want), f"{len(rows)} README rows for {len(want)} in the table"
for ioa, memory, t, predicted, measured, ratio in rows:
    got = f"{predicted} | {measured} | {ratio}"
    assert got == want[(ioa, memory, t)], f"README {ioa} {memory} T={t}: {got}, the data say {want[(ioa, memory, t)]}"
PY

# The README's table of the boot-sweep by kexec recomputes from its stored result, `fit
# --boot-sweep` on the tuning run's sweep and the tuning run's fresh boots.
kexec=$src/tests/vm/findings/boot-sweep-2026-12-01/result-init_on_alloc1-512.json
"$bin" fit --input "$tuning/sweep-init_on_alloc1-prealloc.json" --boot-sweep "$kexec" --json \
    >"$work/kexec-fit.json" 2>/dev/null || fail "fit --boot-sweep on the stored boot-sweep failed"
python3 -S - "$work/kexec-fit.json" "$kexec" "$tuning/measurements.tsv" "$src/README.md" <<'PY' ||
import json, re, statistics, sys
fit, result = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
fresh = {}
for line in open(sys.argv[3]):
    ioa, memory, t, ms = line.split()
    if ioa == "1" and memory == "prealloc":
        fresh.setdefault(int(t), []).append(int(ms))
def shown(ms):
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms"
want = []
for row in fit["boot_sweep"]["rows"]:
    t = row["threads"]
    boots = [s["milliseconds"] for s in result["steps"] if s["threads"] == t]
    want.append(f"| {t} | {', '.join(map(str, boots))} | {shown(statistics.median(boots))} | "
                f"{shown(row['predicted_ms'])} | {row['ratio']:.2f} | {shown(statistics.median(fresh[t]))} |")
readme = open(sys.argv[4]).read()
section = readme[readme.index("| threads | kexec boots (ms, in boot order) |"):]
got = re.findall(r"^\| [12] \|.*\|$", section, re.M)[:len(want)]
assert got == want, f"README {got}, the data say {want}"
PY
    fail "the README's table of the boot-sweep by kexec differs from its data"

# The what-if runs' tables recompute from their stored sweeps and boots (`fit --boot-sweep` as it
# is now), and tests/vm/README.md shows each row. The run of 2026-12-02 was tabled by the model
# before the HVO row's fix: its two HVO rows are the only ones that differ, and the README gives
# them as the current model computes them too.
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
    while IFS= read -r row; do
        grep -qxF -- "$row" "$src/tests/vm/README.md" || fail "tests/vm/README.md lacks $run's row: $row"
    done < <(tail -n +3 "$work/$run/table.md")
done

# The check run (tests/vm/findings/accuracy-2026-12-03), made after that correction with the
# same code and never used to change it: its table recomputes exactly from its stored reports and
# boots, and tests/vm/README.md shows every row of it as it is. Its ratios are what they are (the
# README says which fall outside the bands above); this holds the figures to their data, not the
# model to a band chosen after seeing them.
check=$src/tests/vm/findings/accuracy-2026-12-03
python3 "$src/tests/vm/lib/accuracy_table.py" "$check" "$check/measurements.tsv" 1 0 >"$work/check-table.md" ||
    fail "the check run's table cannot be recomputed"
diff "$work/check-table.md" "$check/table.md" >&2 || fail "the check run's table.md differs from its data"
while IFS= read -r row; do
    grep -qxF -- "$row" "$src/tests/vm/README.md" || fail "tests/vm/README.md lacks the check run's row: $row"
done < <(tail -n +3 "$check/table.md")
