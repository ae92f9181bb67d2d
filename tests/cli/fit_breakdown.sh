#!/usr/bin/env bash
# `hugetune fit` of a saved sweep breaks the predicted boot down and adds the what-if rows and,
# with --first-touch-gib, the first touch, as `run` does: golden summaries of a sweep with an HVO
# pass (the vmemmap part, the HVO what-if measured from grow), the same pass within its spread
# (not predicted), and of one whose kernel has no
# hugetlb_optimize_vmemmap (the pass absent, the row says why), the same blocks in --json, and
# the option's refusals. HUGETUNE_UPDATE_GOLDEN=1 rewrites the golden files instead.
source "$(dirname "$0")/lib/harness.bash"
require_command python3 "it reads the JSON output"

# golden NAME FILE: FILE against tests/golden/NAME.
golden() {
    local want=$src/tests/golden/$1
    if [[ -n ${HUGETUNE_UPDATE_GOLDEN:-} ]]; then
        cp "$2" "$want"
        echo "rewrote $want"
    fi
    [[ -f $want ]] || fail "$want is missing"
    diff -u "$want" "$2" >&2 || fail "fit's summary differs from $want (above)"
}

pass=$src/tests/data/sweep-zen4-2node-hvo-pass.json
plain=$src/tests/data/sweep-zen4-2node-no-hvo-sysctl.json

expect 0 "$bin" fit --input "$pass" --first-touch-gib 64 --verbose
golden fit-hvo-pass.txt "$out"
stdout_has "allocation includes vmemmap (HVO) "
stdout_has "vmemmap (HVO): measured by the sweep's HVO pass"
stdout_has "hugetlb_optimize_vmemmap 0 over as measured"
stdout_has "first touch of 64 GiB of the pool"
stdout_has "this kernel has per-node zeroable_hugepages"

# The pass's grow repetitions among the sweep's: HVO's difference is within their spread, so the
# row is not predicted, says why and still gives the memory HVO frees.
python3 -S - "$pass" "$work/noise.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["hvo_pass"]["points"]:
    if p["phase"] == "grow":
        p["samples_seconds"] = [0.02572, 0.026461, 0.025931]
        p["median_seconds"] = 0.025931
json.dump(d, open(sys.argv[2], "w"))
PY
expect 0 "$bin" fit --input "$work/noise.json" --verbose
stdout_has "not predicted: HVO's difference is within the repetitions' spread"
stdout_has "GiB of struct pages for this pool"
if grep -q "allocation includes vmemmap (HVO) " "$out"; then fail "a vmemmap part from noise"; fi

expect 0 "$bin" fit --input "$plain" --first-touch-gib 64 --verbose
golden fit-no-hvo-sysctl.txt "$out"
stdout_has "not measured: this kernel has no /proc/sys/vm/hugetlb_optimize_vmemmap"
stdout_has "init_on_alloc=0 at "
stdout_has "first touch of 64 GiB of the pool"
if grep -q "allocation includes vmemmap" "$out"; then fail "a vmemmap part without an HVO pass"; fi
if grep -q "zeroable_hugepages" "$out"; then fail "zeroable_hugepages on a kernel without it"; fi

# The same blocks as run's report, in --json; without --first-touch-gib no first_touch.
"$bin" fit --input "$pass" --first-touch-gib 64 --json >"$work/pass.json"
"$bin" fit --input "$plain" --json >"$work/plain.json"
python3 -S - "$work/pass.json" "$work/plain.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
b = j["breakdown"]
assert b["hvo"] is True and b["vmemmap"]["separable"] is True, b
for at in b["at"]:
    assert at["vmemmap"]["seconds"] > 0, at
    assert at["hvo_other_way"]["seconds"] < at["total"]["seconds"], at
rows = {w["parameter"]: w for w in j["what_if"]}
assert rows["hugetlb_free_vmemmap"]["value"] == "off", rows
assert rows["hugetlb_free_vmemmap"]["predicted"]["seconds"] == b["at"][0]["hvo_other_way"]["seconds"]
assert rows["hugetlb_free_vmemmap"]["memory_saved_bytes"] == 28 * 1024 * j["recommendation"]["pool_pages"], rows
assert rows["init_on_alloc"]["predicted"]["seconds"] == b["at"][0]["allocation"]["seconds"], rows
t = j["first_touch"]
assert t["gib"] == 64 and t["zeroable_hugepages"] is True, t
assert [r["threads_per_node"] for r in t["rows"]] == [1, 2, 4, 8, 16], t
# 64 GiB is 32768 pages of 2 MiB, 16384 a node, against the zero phase's 128 a node.
assert abs(t["rows"][0]["seconds"] - 0.024873 * 16384 / 128) < 1e-9, t["rows"][0]
p = json.load(open(sys.argv[2]))
assert "first_touch" not in p, p.keys()
assert p["breakdown"]["hvo"] is False and p["breakdown"]["vmemmap"]["separable"] is False
row = [w for w in p["what_if"] if w["parameter"] == "hugetlb_free_vmemmap"][0]
assert row["value"] == "on" and row["predicted"] is None, row
assert "no /proc/sys/vm/hugetlb_optimize_vmemmap" in row["note"], row
PY

# --plot draws what run --plot draws for the same sweep, the breakdown panel included; it needs a
# sweep document with its probe, and the extension of run's --plot.
if command -v gnuplot >/dev/null; then
    expect 0 "$bin" fit --input "$pass" --plot "$work/fit.svg"
    stderr_has "plot written to $work/fit.svg"
    for want in "predicted boot allocation of the pool" "where the predicted boot allocation goes" \
        "vmemmap optimisation (HVO), measured by the HVO pass" "hugetlb_free_vmemmap=off" \
        "measured phases"; do
        grep -qF "$want" "$work/fit.svg" || fail "fit --plot: no '$want' in the SVG"
    done
else
    expect 0 "$bin" fit --input "$pass" --plot "$work/fit.svg"
    [[ -s $work/fit.svg.gp ]] || fail "no gnuplot script without gnuplot: $(cat "$err")"
    grep -qF "where the predicted boot allocation goes" "$work/fit.svg.gp" || fail "fit --plot: no breakdown panel"
fi
expect_error 2 "--plot: '$work/fit.pdf' needs the extension .svg or .png" "$bin" fit --input "$pass" --plot "$work/fit.pdf"

# One option, one check, in run and fit alike.
expect_error 2 "--first-touch-gib: give a positive size in GiB, e.g. 64" "$bin" fit --input "$pass" --first-touch-gib 0
expect_error 2 "--first-touch-gib: give a positive size in GiB, e.g. 64" "$bin" fit --input "$pass" --first-touch-gib nan
python3 -S - "$pass" "$work/no-zero.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["points"] = [p for p in d["points"] if p["phase"] != "zero"]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_error 2 "--first-touch-gib: the first touch is the zero phase's work; fit a sweep that measured the zero phase" "$bin" fit --input "$work/no-zero.json" --first-touch-gib 64
printf 'phase,threads_per_node,seconds\nalloc,1,2\nalloc,2,1.2\nalloc,4,0.8\nzero,1,1\nzero,2,0.6\nzero,4,0.4\n' >"$work/table.csv"
expect_error 2 "--first-touch-gib: the input does not give its page size (a CSV table); fit the sweep JSON" "$bin" fit --input "$work/table.csv" --first-touch-gib 64
expect_error 2 "--plot: draws a sweep's fit with its probe; give the sweep JSON that 'hugetune sweep --out' wrote" "$bin" fit --input "$work/table.csv" --plot "$work/table.svg"
[[ ! -e $work/table.svg ]] || fail "a refused --plot drew a file"
echo "fit_breakdown: ok"
