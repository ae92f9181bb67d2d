#!/usr/bin/env bash
# `hugetune run` end to end on this machine, as root, with a small sample: the report
# validates against the shipped schema, the plot (or its script) is written, `cmdline` agrees
# with the report, the pools are as before, and bad output paths fail before any change.
source "$(dirname "$0")/lib/pools.bash"
require_root_hugetlb

PY=/usr/bin/python3
$PY -c 'import jsonschema' 2>/dev/null || fail "python3-jsonschema is a test dependency (make test-deps)"
TMP=$(mktemp -d)
trap 'put_back_original; rm -rf "$TMP"' EXIT

validate() {
    $PY - "$SRC/reports/schema/report.schema.json" "$1" <<'PY' || fail "$1 does not validate"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
for e in errors:
    print("schema:", "/".join(map(str, e.absolute_path)), e.message, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}

# 1. A report path in a missing directory fails at once, before any pool is touched.
"$HT" run --report "$TMP/missing/r.json" --sample-mib 8 >"$TMP/out" 2>"$TMP/err"
code=$?
[ $code = 2 ] || fail "missing report directory: exit $code, wanted 2: $(cat "$TMP/err")"
grep -q '^hugetune: error: --report: directory .*missing does not exist' "$TMP/err" ||
    fail "missing report directory: $(cat "$TMP/err")"
[ -e "$STATE" ] && fail "a state file exists: the sweep started despite the bad path"
expect_same_as "$ORIGINAL" "after a refused run"
"$HT" run --plot "$TMP/chart.pdf" >"$TMP/out" 2>"$TMP/err"
[ $? = 2 ] && grep -q -- '--plot: .*\.svg or \.png' "$TMP/err" || fail "bad plot extension: $(cat "$TMP/err")"

"$HT" run --threads 1,2 --report "$TMP/r.json" >"$TMP/out" 2>"$TMP/err"
[ $? = 2 ] && grep -q -- '--threads: a fit needs at least 3 different thread counts' "$TMP/err" ||
    fail "two thread counts: $(cat "$TMP/err")"
"$HT" run --phases zero,grow --report "$TMP/r.json" >"$TMP/out" 2>"$TMP/err"
[ $? = 2 ] && grep -q -- '--phases: .*include alloc' "$TMP/err" || fail "no alloc phase: $(cat "$TMP/err")"
[ -e "$STATE" ] && fail "a state file exists after refused runs"
expect_same_as "$ORIGINAL" "after refused runs"

# 2. Dry run: the plan, nothing changed, no report written.
"$HT" run --dry-run --report "$TMP/dry.json" --sample-mib 8 >"$TMP/out" 2>"$TMP/err" || fail "dry run: $(cat "$TMP/err")"
grep -q 'timed repetitions' "$TMP/out" || fail "dry run prints no plan: $(cat "$TMP/out")"
[ -e "$TMP/dry.json" ] && fail "dry run wrote the report"
expect_same_as "$ORIGINAL" "after a dry run"

# 3. A small real run.
"$HT" run --report "$TMP/report.json" --plot "$TMP/chart.svg" --sample-mib 8 --repetitions 2 \
    --threads 1,2,4 >"$TMP/out" 2>"$TMP/err" || fail "run failed: $(cat "$TMP/err")"
expect_same_as "$ORIGINAL" "after a run"
[ -e "$STATE" ] && fail "the state file was left behind"
validate "$TMP/report.json"
for want in '^phase alloc' '^phase zero' '^phase grow' '^recommend  hugepage_alloc_threads=' \
            '^predicted ' '^warnings' '\[vm\]' 'report written to'; do
    if [ "$want" = '\[vm\]' ] && ! grep -qw hypervisor /proc/cpuinfo; then continue; fi
    grep -q -- "$want" "$TMP/out" || fail "summary lacks '$want': $(cat "$TMP/out")"
done
if command -v gnuplot >/dev/null; then
    grep -q '<svg' "$TMP/chart.svg" || fail "no SVG plot: $(cat "$TMP/err")"
else
    [ -s "$TMP/chart.svg.gp" ] || fail "no gnuplot script without gnuplot: $(cat "$TMP/err")"
fi

# 4. `cmdline` prints exactly the report's parameter, one line.
line=$("$HT" cmdline --report "$TMP/report.json") || fail "cmdline failed"
want=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["recommendation"]["kernel_cmdline"])' "$TMP/report.json")
[ "$line" = "$want" ] || fail "cmdline printed '$line', the report says '$want'"
[[ "$line" =~ ^hugepage_alloc_threads=[1-9][0-9]*$ ]] || fail "cmdline printed '$line'"
[ "$("$HT" cmdline --report "$TMP/report.json" | wc -l)" = 1 ] || fail "cmdline printed more than one line"

# 4b. After a (simulated) reboot, verify adds its block and the report still validates.
n=${line#hugepage_alloc_threads=}
echo "[    4.350400] HugeTLB: allocation took 706ms with hugepage_allocation_threads=$n" >"$TMP/boot.log"
echo "root=/dev/vda1 hugepagesz=2M hugepages=1024 hugepage_alloc_threads=$n" >"$TMP/cmdline"
"$HT" verify --report "$TMP/report.json" --log "$TMP/boot.log" --cmdline "$TMP/cmdline" \
    >"$TMP/out" 2>"$TMP/err" || fail "verify: $(cat "$TMP/err")"
grep -q '^verified' "$TMP/out" || fail "verify said: $(cat "$TMP/out")"
validate "$TMP/report.json"
$PY -c 'import json,sys; v=json.load(open(sys.argv[1]))["verification"]; assert v["measured_ms"] == 706 and v["threads"] == int(sys.argv[2]), v' \
    "$TMP/report.json" "$n" || fail "verification block"

# 5. --json prints the same document it writes.
"$HT" run --json --report "$TMP/report2.json" --sample-mib 8 --repetitions 1 --threads 1,2,4 \
    --phases alloc,zero >"$TMP/out" 2>"$TMP/err" || fail "run --json failed: $(cat "$TMP/err")"
cmp -s "$TMP/out" "$TMP/report2.json" || fail "--json output differs from the written report"
validate "$TMP/report2.json"
expect_same_as "$ORIGINAL" "after the second run"
echo "ok: run end to end"
