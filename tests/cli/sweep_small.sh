#!/usr/bin/env bash
# A small real sweep yields every sample, writes a file that validates against the sweep schema,
# and leaves every pool and overcommit value as found, also when a pool is already in use by
# someone (set up here and restored at the end).
source "$(dirname "$0")/lib/harness.bash"
use_pools

check_sweep() {
    local label=$1 before hvo_before=absent hvo_after=absent
    before=$(pool_snapshot)
    [[ -e $hvo_sysctl ]] && hvo_before=$(cat "$hvo_sysctl")
    expect 0 "$bin" sweep --threads 1,2 --sample-mib 8 --repetitions 2 --out "$work/s.json" --json
    expect_pools "$before" "$label"
    [[ -e $hvo_sysctl ]] && hvo_after=$(cat "$hvo_sysctl")
    [[ $hvo_after == "$hvo_before" ]] ||
        fail "$label: hugetlb_optimize_vmemmap was $hvo_before, is $hvo_after after the sweep"
    [[ ! -e $state_file ]] || fail "$label: state file left behind"
    validate_schema sweep.schema.json "$work/s.json"
    python3 -S - "$work/s.json" "$out" "$hvo_before" <<'PY' || fail "$label: sweep output is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
hvo = sys.argv[3]
if hvo == "absent":
    assert "points" not in d["hvo_pass"] and "no /proc/sys/vm" in d["hvo_pass"]["note"], d["hvo_pass"]
else:
    h = d["hvo_pass"]
    assert h["hugetlb_optimize_vmemmap_as_is"] == int(hvo), h
    assert h["hugetlb_optimize_vmemmap"] == 1 - int(hvo), h
    got = {(q["phase"], q["threads_per_node"]) for q in h["points"]}
    assert got == {("grow", 1)}, got
    assert all(len(q["samples_seconds"]) == 2 for q in h["points"]), h
assert json.load(open(sys.argv[2]))["points"] == d["points"], "stdout and --out differ"
assert d["format"] == "hugetune-sweep" and d["format_version"] == 1
assert d["complete"] is True
p = d["parameters"]
assert p["threads_per_node"] == [1, 2] and p["repetitions"] == 2 and p["page_size_kb"] == 2048
assert p["sample_mib_per_node"] == 8 and p["nodes"], p
assert d["sampling"]["rule"] == "fixed" and d["sampling"]["stopped"] == "fixed count", d["sampling"]
assert d["sampling"]["rounds"] == 2, d["sampling"]
want = {("alloc", 1), ("alloc", 2), ("zero", 1), ("zero", 2), ("grow", 1)}
got = {(q["phase"], q["threads_per_node"]) for q in d["points"]}
assert got == want, got
for q in d["points"]:
    assert q["pages_per_node"] == 4, q
    assert len(q["samples_seconds"]) == 2 and all(s > 0 for s in q["samples_seconds"]), q
    assert q["median_seconds"] > 0 and q["gib_per_second"] > 0, q
    assert q["shortfall_pages"] == 0, q
    assert q["total_threads"] == q["threads_per_node"] * len(p["nodes"])
    assert len(q["thread_seconds"]) == 2
    assert all(len(t) == q["total_threads"] for t in q["thread_seconds"])
    assert "probe" in d and "topology" in d["probe"]
PY
}

hvo_sysctl=/proc/sys/vm/hugetlb_optimize_vmemmap
check_sweep "empty pools"

# The default measures adaptively: every point once, the candidates (alloc and zero at the counts
# that fit in the node, where a phase has two) at least twice and at most 5 times, the stop and
# its reason in the file and in the summary's sampling line.
before=$(pool_snapshot)
expect 0 "$bin" sweep --threads 1,2 --sample-mib 8 --out "$work/adaptive.json"
expect_pools "$before" "adaptive sweep"
stdout_has "sampling: adaptive, "
validate_schema sweep.schema.json "$work/adaptive.json"
python3 -S - "$work/adaptive.json" <<'PY' || fail "adaptive sweep output is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sampling"]
assert s["rule"] == "adaptive" and s["first_rounds"] == 1 and s["max_repetitions"] == 5, s
assert s["stopped"] in ("settled", "maximum"), s
assert d["parameters"]["repetitions"] == 5, d["parameters"]
counts = [len(q["samples_seconds"]) for q in d["points"]]
assert all(1 <= n <= 5 for n in counts), counts
assert s["rounds"] >= max(counts), (s, counts)
for phase in ("alloc", "zero"):
    candidates = [q for q in d["points"] if q["phase"] == phase and not q.get("oversubscribed")]
    if len(candidates) >= 2:
        assert all(len(q["samples_seconds"]) >= 2 for q in candidates), (phase, candidates)
PY

# Someone else's pool: 6 persistent pages (3 of them in use would need a helper process; free
# pages are the harder case: the alloc phase must not take them) and an overcommit of 3.
pool=/sys/kernel/mm/hugepages/hugepages-2048kB
echo 6 >"$pool/nr_hugepages"
echo 3 >"$pool/nr_overcommit_hugepages"
[[ $(cat "$pool/nr_hugepages") -eq 6 ]] || skip "could not set up a 6-page pool (memory too fragmented)"
check_sweep "pre-existing pool"
[[ $(cat "$pool/free_hugepages") -eq 6 ]] || fail "the pre-existing pool lost free pages"
echo "sweep_small: ok"
