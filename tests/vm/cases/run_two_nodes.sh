#!/usr/bin/env bash
# vmlab-arch: arm64
# `hugetune run` on a 2-node guest (-smp 2, a CPU per node), no pool: the sweep measures both
# nodes, each holding at most its zero pool plus its alloc sample of surplus pages; every pool
# value ends as it began; the report's sku counts 2 nodes and 1 hardware thread per node, and
# every predicted value is the per-node count times the 2 nodes, capped at the 2 CPUs
# (docs/kernel-facts.md "A total, not per node"). The arm64 form of run_nodes, in a guest small
# enough for the emulator.
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare
vm_boot run-two-nodes run-nodes "init_on_alloc=0" --smp 2 --mem 1024 --nodes 2 ||
    vmlab_fail "the guest did not finish"

vm_expect_rc run-two-nodes run 0
before=$(vm_section run-two-nodes pools-before)
[[ "$(vm_section run-two-nodes pools-after)" == "$before" ]] ||
    vmlab_fail "run left the pools changed: $(vm_section run-two-nodes pools-after | tr '\n' ';')"

# 16 MiB samples: 8 pages per node.
peaks=$(vm_section run-two-nodes peaks)
python3 - "$peaks" <<'PY' || vmlab_fail "run-two-nodes: the per-node counters moved where they should not: $(tr '\n' ';' <<<"$peaks")"
import sys
peaks = {int(n): (int(nr), int(surplus)) for n, nr, surplus in (line.split() for line in sys.argv[1].splitlines())}
assert sorted(peaks) == [0, 1], peaks
# The zero phase's pool (8 pages) stays while the alloc phase faults 8 surplus pages beside it.
# The sampler is a shell loop sharing the 2 CPUs with the run's workers: it may miss a node's
# short alloc phase (seen: node 1 read at most 8 pages, none surplus) or read its pool only
# before or after it (seen: at most 8 pages, 8 of them surplus). So no node may pass its bound,
# and one node's surplus must have been seen.
for nr, surplus in peaks.values():
    assert surplus <= 8 and surplus <= nr <= 16, peaks
assert any(surplus > 0 for _, surplus in peaks.values()), peaks
PY

vm_check_json run-two-nodes report <<'PY'
params = doc["sweep"]["parameters"]
assert params["nodes"] == [0, 1], params
assert all(p["pages_per_node"] == 8 and p["shortfall_pages"] == 0 for p in doc["sweep"]["points"]), doc["sweep"]["points"]
sku = doc["sku"]
assert sku["nodes"] == 2 and sku["hardware_threads_per_node"] == 1, sku
assert doc["kernel"]["largest_buddy_block_kb"] == 4096, doc["kernel"]
fit = doc["fit"]
assert fit["key"]["nodes"] == 2, fit["key"]
for p in fit["predictions"]:
    per_node = p["threads_per_node"]
    if float(per_node).is_integer():
        assert p["hugepage_alloc_threads"] == min(int(per_node) * 2, 2), p
rec = doc["recommendation"]
assert 1 <= rec["hugepage_alloc_threads"] <= 2, rec
PY
echo "peaks (node nr surplus): $(vm_section run-two-nodes peaks | tr '\n' ';') recommended $(vm_section run-two-nodes report | python3 -c 'import json,sys; r=json.load(sys.stdin)["recommendation"]; print(r["decision"], r["hugepage_alloc_threads"])')"
