#!/usr/bin/env python3
"""The what-if table (tests/vm/whatif-table.sh): each prediction guest's `fit --boot-sweep` rows
beside the boots, one writer for the run and for the test that recomputes a stored run's table
(tests/cli/fit_boot_lab.sh).

usage: whatif_table.py DIR BOOTS.tsv SETTING... (DIR holds whatif-predict-<setting>-fit.json and,
from a run, whatif-predict-<setting>.json)"""
import json, statistics, sys
work, tsv, settings = sys.argv[1], sys.argv[2], sys.argv[3:]
boots = {}
for line in open(tsv):
    ioa, hvo, threads, rep, ms, logged, sysctl = line.split()
    boots.setdefault((ioa, hvo, int(threads)), []).append(int(ms))
print("| prediction guest | booted | T | compared with | predicted ms (range) | measured ms (median; all) | predicted/measured | 0.85-1.15 |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for ioa in settings:
    fit = json.load(open(f"{work}/whatif-predict-{ioa}-fit.json"))
    # The guest's report, for its own rows as comments; a stored run keeps only its sweep.
    try:
        report = json.load(open(f"{work}/whatif-predict-{ioa}.json"))
    except FileNotFoundError:
        report = {}
    b = fit["boot_sweep"]
    hvo_as_is = "on" if b["hvo"] else "off"
    guest = f"init_on_alloc={ioa}, HVO {hvo_as_is if b['hvo'] is not None else 'unknown'}"
    rec = fit["recommendation"]["hugepage_alloc_threads"]
    def verdict(p, m):
        if p is None or not m:
            return "-", "not predicted"
        r = p / m
        return f"{r:.2f}", "yes" if 0.85 <= r <= 1.15 else "**no**"
    for row in b["rows"]:
        t = row["threads"]
        runs = boots.get((ioa, hvo_as_is, t), [])
        ratio, ok = verdict(row["predicted_ms"], row["measured_ms"])
        print(f"| {guest} | init_on_alloc={ioa} hugetlb_free_vmemmap={hvo_as_is} | {t} | the prediction | {row['predicted_ms']:.0f} | "
              f"{row['measured_ms']:.0f} ({', '.join(map(str, runs))}) | {ratio} | {ok} |")
    for w in b["what_if"]:
        t = w["threads"]
        setting = f"{w['parameter']}={w['value']}" + (" (report's row)" if w["recommended"] else "") if w["parameter"] else "both the other way"
        p = w["predicted_ms"]
        shown = "-" if p is None else f"{p:.0f}" + (f" ({w['predicted_low_ms']:.0f}-{w['predicted_high_ms']:.0f})" if w["predicted_low_ms"] is not None else "")
        ratio, ok = verdict(p, w["measured_ms"])
        note = "" if p is not None else f" ({w['note']})"
        if w["parameter"] == "init_on_alloc":
            key = (w["value"], hvo_as_is, t)
        elif w["parameter"]:
            key = (ioa, w["value"], t)
        else:
            key = ("0" if ioa == "1" else "1", "off" if hvo_as_is == "on" else "on", t)
        booted = f"init_on_alloc={key[0]} hugetlb_free_vmemmap={key[1]}"
        runs = ", ".join(map(str, boots.get(key, [])))
        print(f"| {guest} | {booted} | {t} | {setting} | {shown} | {w['measured_ms']:.0f} ({runs}) | {ratio} | {ok}{note} |")
    for u in b["unmatched"]:
        print(f"| {guest} | {u} | | | | | | |")
    for w in report.get("what_if", []):
        p = w.get("predicted")
        print(f"<!-- report's what_if row: {w['parameter']}={w['value']} at T={w['hugepage_alloc_threads']}: "
              f"{'not predicted' if not p else '%.0f ms' % (p['seconds'] * 1000)} -->")
