#!/usr/bin/env bash
# `hugetune fit` on the published Skylake table and on a sweep fixture: values, JSON fields,
# notes on stderr, determinism.
set -euo pipefail
bin=$1 src=$2
command -v python3 >/dev/null || { echo "skip: python3 is needed to read the JSON output"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

sky=$src/tests/data/skylake-4node-1tib.csv
"$bin" fit --input "$sky" --nodes 4 --cpus 144 --json >"$tmp/sky.json" 2>"$tmp/sky.err"
python3 - "$tmp/sky.json" <<'PY'
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
PY
[[ ! -s $tmp/sky.err ]] || fail "notes on stderr although --nodes and --cpus were given: $(cat "$tmp/sky.err")"

# The readable summary leads with the verdict and names the setting.
"$bin" fit --input "$sky" --nodes 4 --cpus 144 >"$tmp/sky.txt"
grep -q "hugepage_alloc_threads=32 (8 per node)" "$tmp/sky.txt" || fail "summary: $(cat "$tmp/sky.txt")"

# Without --nodes and --cpus: one node, no cap beyond the table, both said on stderr.
"$bin" fit --input "$sky" --json >"$tmp/one.json" 2>"$tmp/one.err"
grep -q "assuming 1 node" "$tmp/one.err" || fail "no node note: $(cat "$tmp/one.err")"
grep -q "give --cpus" "$tmp/one.err" || fail "no cpus note: $(cat "$tmp/one.err")"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["recommendation"]; assert r["hugepage_alloc_threads"] == r["threads_per_node"] <= 32, r' "$tmp/one.json"

# --tolerance takes a percentage; a wider one never picks more threads.
"$bin" fit --input "$sky" --nodes 4 --cpus 144 --tolerance 30% --json >"$tmp/wide.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["recommendation"]; assert r["threads_per_node"] < 8 and r["tolerance"] == 0.3, r' "$tmp/wide.json"

# A sweep document: machine facts from its probe block; flags override them.
sweep=$src/tests/data/sweep-zen4-2node.json
"$bin" fit --input "$sweep" --json >"$tmp/sweep.json" 2>"$tmp/sweep.err"
python3 - "$tmp/sweep.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["key"] == {"microarch": "zen4", "nodes": 2, "hw_threads_per_node": 16, "page_size_kb": 2048}, j["key"]
assert j["model"]["curve"] == "alloc"
assert j["recommendation"]["default_threads"] == 8
assert j["recommendation"]["hugepage_alloc_threads"] == 2 * j["recommendation"]["threads_per_node"]
assert set(j["phases"]) == {"alloc", "zero", "grow"}, j["phases"].keys()
assert j["phases"]["grow"]["model"] is None
assert j["bootstrap"]["method"] == "repetitions" and j["bootstrap"]["seed"] == 7
PY
grep -q "oversubscribed" "$tmp/sweep.err" || fail "no oversubscribed note: $(cat "$tmp/sweep.err")"
"$bin" fit --input "$sweep" --cpus 8 --json >"$tmp/capped.json" 2>/dev/null
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["recommendation"]; assert r["hugepage_alloc_threads"] <= 8 and r["max_threads_per_node"] == 4 and r["default_threads"] == 2, r' "$tmp/capped.json"

# Same input, same seed: byte-identical output.
"$bin" fit --input "$sweep" --json >"$tmp/again.json" 2>/dev/null
cmp -s "$tmp/sweep.json" "$tmp/again.json" || fail "two runs differ"
"$bin" fit --input "$sweep" --seed 8 --json >"$tmp/seed8.json" 2>/dev/null
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["bootstrap"]["seed"] == 8' "$tmp/seed8.json"
echo "fit: ok"
