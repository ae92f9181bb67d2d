#!/usr/bin/env bash
# `hugetune run` end to end on this machine, as root, with a small sample: the report
# validates against the shipped schema, the plot (or its script) is written, `cmdline` agrees
# with the report, the pools are as before, and bad output paths fail before any change.
source "$(dirname "$0")/lib/harness.bash"
use_pools
python3 -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema is a test dependency (make test-deps)"

# 1. A report path in a missing directory fails at once, before any pool is touched.
expect 2 "$bin" run --report "$work/missing/r.json" --sample-mib 8
stderr_matches '^hugetune: error: --report: directory .*missing does not exist'
[[ ! -e $state_file ]] || fail "a state file exists: the sweep started despite the bad path"
expect_pools "$original_pools" "after a refused run"
expect 2 "$bin" run --plot "$work/chart.pdf"
stderr_matches '--plot: .*\.svg or \.png'

expect 2 "$bin" run --threads 1,2 --report "$work/r.json"
stderr_has '--threads: a fit needs at least 3 different thread counts'
expect 2 "$bin" run --phases zero,grow --report "$work/r.json"
stderr_matches '--phases: .*include alloc'
[[ ! -e $state_file ]] || fail "a state file exists after refused runs"
expect_pools "$original_pools" "after refused runs"

# 2. Dry run: the plan, nothing changed, no report written.
expect 0 "$bin" run --dry-run --report "$work/dry.json" --sample-mib 8
stdout_has 'timed repetitions'
[[ ! -e $work/dry.json ]] || fail "dry run wrote the report"
expect_pools "$original_pools" "after a dry run"

# 3. A small real run.
expect 0 "$bin" run --report "$work/report.json" --plot "$work/chart.svg" --sample-mib 8 \
    --repetitions 2 --threads 1,2,4 --first-touch-gib 8 --verbose
expect_pools "$original_pools" "after a run"
[[ ! -e $state_file ]] || fail "the state file was left behind"
validate_schema report.schema.json "$work/report.json"
for want in '^phase alloc' '^phase zero' '^phase grow' '^answer     (set|keep the kernel default,) hugepage_alloc_threads=' \
    '^predicted ' '^how sure ' '^warnings' 'report written to'; do
    stdout_matches "$want"
done
# The answer first: the header, then the answer on the third line, the notes after it all.
[[ $(sed -n 3p "$out") == "answer     "* ]] || fail "the answer is not first: $(head -5 "$out")"
if grep -qw hypervisor /proc/cpuinfo; then stdout_has '[vm]'; fi
# The first touch from this machine's zero phase, in the report and the summary.
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["first_touch"]; assert t["gib"] == 8 and [r["threads_per_node"] for r in t["rows"]] == [1, 2, 4], t' "$work/report.json" ||
    fail "the report's first_touch block"
stdout_has 'first touch of 8 GiB of the pool'
has_breakdown=$(python3 -c 'import json,sys; print("yes" if json.load(open(sys.argv[1])).get("breakdown") else "no")' "$work/report.json")
if command -v gnuplot >/dev/null; then
    grep -q '<svg' "$work/chart.svg" || fail "no SVG plot: $(cat "$err")"
    # A report with a breakdown draws it, with the what-if rows beside it.
    if [[ $has_breakdown == yes ]]; then
        grep -q 'where the predicted boot allocation goes' "$work/chart.svg" || fail "no breakdown panel in the plot"
        grep -q 'init_on_alloc=' "$work/chart.svg" || fail "no what-if bar in the plot"
        echo "run_e2e: the plot has the breakdown panel"
    fi
else
    [[ -s $work/chart.svg.gp ]] || fail "no gnuplot script without gnuplot: $(cat "$err")"
fi

# 4. `cmdline` prints exactly the report's parameter, one line, or nothing when the report
# keeps the kernel default.
expect 0 "$bin" cmdline --report "$work/report.json"
line=$(cat "$out")
# The fit's basis is a code a machine can key on, on every machine whatever it measured.
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fit"]; assert f["cost_basis"] in ("alloc_and_zero", "alloc_zeroed_once", "alloc_only", "alloc_only_flat"), f["cost_basis"]; assert f["cost_basis_text"], f' "$work/report.json" ||
    fail "the report's fit.cost_basis is not a code"
# The SKU's memory per node is the smallest memory node's MemTotal (huge pages included) as
# memory is installed, 2^n or 3 x 2^n GiB: the same at every run, whatever the pools hold.
python3 - "$work/report.json" <<'PY' || fail "sku.memory_per_node_gib is not the nodes' MemTotal as installed"
import glob, json, re, sys
sku = json.load(open(sys.argv[1]))["sku"]
totals = []
for f in glob.glob("/sys/devices/system/node/node*/meminfo"):
    kb = int(re.search(r"MemTotal:\s+(\d+) kB", open(f).read()).group(1))
    if kb > 0 and "MemTotal" in open(f).read():
        totals.append(kb * 1024)
gib = min(totals) / 2**30
nominal = next(s for p in (2**i for i in range(41)) for s in (p, p * 3 // 2) if (s == p or p >= 2) and gib <= s)
assert sku["memory_per_node_gib"] == nominal, (sku, gib, nominal)
PY
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recommendation"][sys.argv[2]])' "$work/report.json" "$1"; }
want=$(field kernel_cmdline)
if [[ $(field decision) == keep_default ]]; then
    # One decision, one text: a kept default has nothing to add, in the report as on stdout.
    [[ -z $want ]] || fail "a kept default's kernel_cmdline is '$want', not empty"
    stdout_empty
    stderr_has "keep the kernel default (hugepage_alloc_threads=$(field hugepage_alloc_threads))"
else
    stdout_is "$want"
    [[ $line =~ ^hugepage_alloc_threads=[1-9][0-9]*$ ]] || fail "cmdline printed '$line'"
    [[ $(wc -l <"$out") -eq 1 ]] || fail "cmdline printed more than one line"
fi

# 4b. After a (simulated) reboot, verify adds its block and the report still validates.
n=$(field hugepage_alloc_threads)
echo "[    4.350400] HugeTLB: allocation took 706ms with hugepage_allocation_threads=$n" >"$work/boot.log"
echo "root=/dev/vda1 hugepagesz=2M hugepages=1024 hugepage_alloc_threads=$n" >"$work/cmdline"
expect 0 "$bin" verify --report "$work/report.json" --log "$work/boot.log" --cmdline "$work/cmdline"
stdout_matches '^verified'
validate_schema report.schema.json "$work/report.json"
python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verification"]; assert v["measured_ms"] == 706 and v["threads"] == int(sys.argv[2]), v' \
    "$work/report.json" "$n" || fail "verification block"

# 5. --json prints the same document it writes.
expect 0 "$bin" run --json --report "$work/report2.json" --sample-mib 8 --repetitions 1 \
    --threads 1,2,4 --phases alloc,zero
cmp -s "$out" "$work/report2.json" || fail "--json output differs from the written report"
validate_schema report.schema.json "$work/report2.json"
expect_pools "$original_pools" "after the second run"
echo "run_e2e: ok"
