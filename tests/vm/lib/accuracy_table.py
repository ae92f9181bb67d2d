#!/usr/bin/env python3
"""The accuracy run's table (tests/vm/accuracy.sh): per init_on_alloc setting and host memory,
the guest report's prediction at each T against the median of the kernel's own boot figures.
One writer of the table, for the run and for the test that recomputes a stored run's table
(tests/cli/fit_boot_lab.sh).

usage: accuracy_table.py DIR MEASUREMENTS.tsv SETTING... (DIR holds predict-<setting>-<host
memory>.json, the guests' reports)"""
import json, statistics, sys
work, table, settings = sys.argv[1], sys.argv[2], sys.argv[3:]
measured = {}
for line in open(table):
    ioa, backing, threads, ms = line.split()
    measured.setdefault((ioa, backing, int(threads)), []).append(int(ms))
print("| init_on_alloc | host memory | curve | T | predicted ms | measured ms (median; all) | predicted/measured | decision | predicted best | measured best |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for ioa in settings:
    for backing in ("prealloc", "lazy"):
        report = json.load(open(f"{work}/predict-{ioa}-{backing}.json"))
        predicted = {p["hugepage_alloc_threads"]: p["seconds"] * 1000 for p in report["fit"]["predictions"]}
        rec = report["recommendation"]
        recommended = f'{rec["decision"]} {rec["hugepage_alloc_threads"]}'
        predicted_best = rec["best_hugepage_alloc_threads"]
        curve = report["fit"]["model"]["curve"]
        medians = {t: statistics.median(v) for (i, b, t), v in measured.items() if i == ioa and b == backing}
        best = min(medians, key=medians.get)
        for t in sorted(medians):
            p = predicted.get(t)
            ratio = f"{p / medians[t]:.2f}" if p and medians[t] else "-"
            runs = ", ".join(str(x) for x in measured[(ioa, backing, t)])
            shown = f"{p:.0f}" if p is not None else "-"
            print(f"| {ioa} | {backing} | {curve} | {t} | {shown} | {medians[t]:.0f} ({runs}) | {ratio} | {recommended} | {predicted_best} | {best} |")
