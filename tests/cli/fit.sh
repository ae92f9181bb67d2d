#!/usr/bin/env bash
# `hugetune fit` on the published Skylake table and on a sweep fixture: values, JSON fields,
# notes on stderr, determinism.
source "$(dirname "$0")/lib/harness.bash"
require_command python3 "it reads the JSON output"

sky=$src/tests/data/skylake-4node-1tib.csv
"$bin" fit --input "$sky" --nodes 4 --cpus 144 --json >"$work/sky.json" 2>"$work/sky.err"
python3 -S - "$work/sky.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
r = j["recommendation"]
assert r["threads_per_node"] == 8, r
assert r["hugepage_alloc_threads"] == 32, r
assert r["default_threads"] == 36, r
assert abs(r["predicted_seconds"] - 16.0) < 1e-9, r
assert r["predicted_default_seconds"] > r["predicted_seconds"], r
assert 0 <= r["confidence"] <= 1, r
for k in ("name", "sigma", "kappa", "lambda", "r2"):
    assert k in j["model"], k
assert len(j["predictions"]) == 36
assert all({"threads_per_node", "seconds"} <= p.keys() for p in j["predictions"])
# A machine field holds a code, its words beside it (a boot table is its own basis).
assert j["cost_basis"] == "boot_table", j["cost_basis"]
assert j["cost_basis_text"] == "boot table", j["cost_basis_text"]
PY
[[ ! -s $work/sky.err ]] || fail "notes on stderr although --nodes and --cpus were given: $(cat "$work/sky.err")"

# The readable summary leads with the answer and names the setting.
"$bin" fit --input "$sky" --nodes 4 --cpus 144 >"$work/sky.txt"
head -1 "$work/sky.txt" | grep -qx "answer     set hugepage_alloc_threads=32 (8 per node x 4 nodes)" ||
    fail "summary: $(cat "$work/sky.txt")"

# Without --nodes and --cpus: one node, no cap beyond the table, both said on stderr.
"$bin" fit --input "$sky" --json >"$work/one.json" 2>"$work/one.err"
grep -q "assuming 1 node" "$work/one.err" || fail "no node note: $(cat "$work/one.err")"
grep -q "give --cpus" "$work/one.err" || fail "no cpus note: $(cat "$work/one.err")"
python3 -S -c 'import json,sys; r=json.load(open(sys.argv[1]))["recommendation"]; assert r["hugepage_alloc_threads"] == r["threads_per_node"] <= 32, r' "$work/one.json"

# --tolerance takes a percentage. Within 30% of the best the kernel default (36 threads) is
# kept: the fewest threads within the tolerance would be slower than it.
"$bin" fit --input "$sky" --nodes 4 --cpus 144 --tolerance 30% --json >"$work/wide.json"
python3 -S -c 'import json,sys; r=json.load(open(sys.argv[1]))["recommendation"]; assert r["decision"] == "keep_default" and r["hugepage_alloc_threads"] == r["default_threads"] == 36 and r["predicted_seconds"] <= r["predicted_default_seconds"] and r["tolerance"] == 0.3, r' "$work/wide.json"

# A sweep document: machine facts from its probe block; flags override them.
sweep=$src/tests/data/sweep-zen4-2node.json
"$bin" fit --input "$sweep" --json >"$work/sweep.json" 2>"$work/sweep.err"
python3 -S - "$work/sweep.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["key"] == {"microarch": "zen4", "nodes": 2, "hw_threads_per_node": 16, "page_size_kb": 2048}, j["key"]
assert j["model"]["curve"] == "alloc_zeroed_once", j["model"]["curve"]
assert j["recommendation"]["default_threads"] == 8
assert j["recommendation"]["hugepage_alloc_threads"] == 2 * j["recommendation"]["threads_per_node"]
assert set(j["phases"]) == {"alloc", "zero", "grow", "alloc_zeroed_once"}, j["phases"].keys()
assert j["phases"]["grow"]["model"] is None
# A sweep measures every point once a round: its rounds are drawn whole.
assert j["bootstrap"]["method"] == "rounds" and j["bootstrap"]["seed"] == 7
PY
grep -q "oversubscribed" "$work/sweep.err" || fail "no oversubscribed note: $(cat "$work/sweep.err")"
"$bin" fit --input "$sweep" --cpus 8 --json >"$work/capped.json" 2>/dev/null
python3 -S -c 'import json,sys; r=json.load(open(sys.argv[1]))["recommendation"]; assert r["hugepage_alloc_threads"] <= 8 and r["max_threads_per_node"] == 4 and r["default_threads"] == 2, r' "$work/capped.json"

# Same input, same seed: byte-identical output.
"$bin" fit --input "$sweep" --json >"$work/again.json" 2>/dev/null
cmp -s "$work/sweep.json" "$work/again.json" || fail "two runs differ"
"$bin" fit --input "$sweep" --seed 8 --json >"$work/seed8.json" 2>/dev/null
python3 -S -c 'import json,sys; assert json.load(open(sys.argv[1]))["bootstrap"]["seed"] == 8' "$work/seed8.json"
echo "fit: ok"
