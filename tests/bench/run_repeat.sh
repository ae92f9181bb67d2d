#!/usr/bin/env bash
# Consecutive `hugetune run` with the defaults on this machine (root; each run puts the pools
# back): per run the recommendation, its confidence (or "by rule" where a rule decided) and its
# range over resampled sweeps, the predicted boot allocation, the alloc
# and zero phases' fitted optimum (none for Amdahl's law, which has none) and the run's wall
# time, side by side, so that the spread between runs is seen. A measurement: prints, asserts
# nothing.
#     usage: tests/bench/run_repeat.sh HUGETUNE [RUNS, default 5]
set -eu
bin=$1
runs=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((i = 1; i <= runs; i++)); do
    start=$(date +%s.%N)
    "$bin" run --report "$work/report-$i.json" >/dev/null 2>"$work/err-$i" ||
        { cat "$work/err-$i" >&2; echo "run $i failed" >&2; exit 1; }
    end=$(date +%s.%N)
    python3 -c "print(f'{$end - $start:.1f}')" >"$work/wall-$i"
done
python3 - "$work" "$runs" <<'PY'
import json, sys
work, runs = sys.argv[1], int(sys.argv[2])
rows = {k: [] for k in ("recommendation", "confidence", "range over resampled sweeps",
                        "predicted boot allocation",
                        "fitted optimum of the alloc phase", "fitted optimum of the zero phase",
                        "wall time of the run")}
for i in range(1, runs + 1):
    r = json.load(open(f"{work}/report-{i}.json"))
    rec = r["recommendation"]
    rows["recommendation"].append(f'{rec["decision"]} {rec["hugepage_alloc_threads"]}')
    fit = r["fit"]["recommendation"]
    rows["confidence"].append(f'{rec["confidence"] * 100:.0f}%' if rec.get("confidence") is not None
                              else "by rule" if fit.get("decided_by_rule") else "-")
    spread = fit.get("confidence_spread")
    rows["range over resampled sweeps"].append(
        f'{spread["low"] * 100:.0f}%..{spread["high"] * 100:.0f}% ({spread["by_rule"]} of {spread["resampled_sweeps"]} by rule)'
        if spread and spread.get("low") is not None else "-")
    rows["predicted boot allocation"].append(f'{rec["predicted_seconds"]:.2f} s for {rec["pool_pages"]:.0f} pages ({rec["pool_source"]})')
    for phase in ("alloc", "zero"):
        m = r["fit"]["phases"].get(phase, {}).get("model", {})
        n = m.get("n_star")
        rows[f"fitted optimum of the {phase} phase"].append(f'{n:.1f} ({m.get("name")})' if n else f'none ({m.get("name", "-")})')
    rows["wall time of the run"].append(open(f"{work}/wall-{i}").read().strip() + " s")
print("| | " + " | ".join(f"run {i}" for i in range(1, runs + 1)) + " |")
print("| --- |" + " --- |" * runs)
for name, values in rows.items():
    print(f"| {name} | " + " | ".join(values) + " |")
PY
