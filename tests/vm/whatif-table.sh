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
python3 "$(dirname "$0")/lib/whatif_table.py" "$work" "$boots_tsv" "${settings[@]}"
