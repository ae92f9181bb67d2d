#!/usr/bin/env bash
# The what-if part of accuracy.sh, from what its guests left in WORK: the boots
# (whatif-boots.tsv: init_on_alloc, hugetlb_free_vmemmap, T, boot, ms, the log's heap alloc, the
# HVO sysctl) become one boot-sweep result (whatif-boots.json); each prediction guest's report
# (whatif-predict-<init_on_alloc>.json) gives its sweep, which `hugetune fit --boot-sweep` sets
# beside those boots; prints the Markdown table.
#
#   tests/vm/whatif-table.sh <hugetune binary> <work dir> <pages> <kernel release> <init_on_alloc values...>
set -uo pipefail
binary=${1:?usage: $0 <hugetune binary> <work dir> <pages> <kernel release> <init_on_alloc values...>}
work=${2:?}
pages=${3:?}
release=${4:?}
shift 4
settings=("$@")
fail() { echo "whatif-table: $*" >&2; exit 1; }
boots_tsv=$work/whatif-boots.tsv

python3 - "$boots_tsv" "$work/whatif-boots.json" "$pages" "$release" <<'PY' || fail "the boots do not make a result"
import json, sys
tsv, out, pages, release = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
steps = []
for line in open(tsv):
    ioa, hvo, threads, rep, ms, logged, sysctl = line.split()
    steps.append({"threads": int(threads), "repetition": int(rep),
                  "init_on_alloc": ioa == "1", "hugetlb_free_vmemmap": hvo == "on",
                  "milliseconds": int(ms), "logged_threads": int(threads),
                  "logged_init_on_alloc": None if logged == "none" else logged == "on",
                  "hvo": None if sysctl == "none" else sysctl == "1"})
    if int(ms) == 0:
        sys.exit(f"a boot at {line.strip()} logged 0 ms: give a larger WHATIF_PAGES")
    if steps[-1]["logged_init_on_alloc"] not in (None, steps[-1]["init_on_alloc"]):
        sys.exit(f"a boot did not run with the init_on_alloc it was given: {line.strip()}")
json.dump({"format": "hugetune-boot-sweep", "format_version": 1, "phase": "done", "complete": True,
           "abort_reason": "", "kernel": {"release": release, "online_cpus": 2}, "nodes": 1,
           "page_size_kb": 2048, "pages": pages, "init_on_alloc": None, "steps": steps},
          open(out, "w"), indent=2)
PY
# The report keeps the sweep without the probe it carries beside it (cpu, host, kernel,
# topology, virtualization at the top): put them back together as `hugetune sweep --out` writes.
for init_on_alloc in "${settings[@]}"; do
    name=whatif-predict-$init_on_alloc
    python3 - "$work/$name.json" "$work/$name-sweep.json" <<'PY' || fail "$name: no sweep in its report"
import json, sys
report = json.load(open(sys.argv[1]))
sweep = dict(report["sweep"], format="hugetune-sweep", format_version=1)
sweep["probe"] = {k: report[k] for k in ("cpu", "host", "kernel", "topology", "virtualization") if k in report}
json.dump(sweep, open(sys.argv[2], "w"))
PY
    "$binary" fit --input "$work/$name-sweep.json" --boot-sweep "$work/whatif-boots.json" --json \
        >"$work/$name-fit.json" 2>"$work/$name-fit.err" || fail "fit of $name: $(cat "$work/$name-fit.err")"
done
python3 - "$work" "$boots_tsv" "${settings[@]}" <<'PY'
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
    report = json.load(open(f"{work}/whatif-predict-{ioa}.json"))
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
PY
