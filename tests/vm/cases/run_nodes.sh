#!/usr/bin/env bash
# `hugetune run` on a 4-node guest whose last node has memory and no CPUs (-smp 3): the sweep's
# threads run on the 3 nodes with CPUs and, with boot placement, take their pages from all 4
# memory nodes as the boot's workers do, each node holding at most its zero pool plus its share
# of an alloc sample in surplus pages; every pool value is as before; the report's sku counts the 4
# nodes with memory and 1 hardware thread per node, and every predicted value is the per-node
# count times the 3 measured nodes, capped at the 3 CPUs (the kernel's workers run on nodes with
# CPUs: docs/kernel-facts.md "A total, not per node").
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare
vm_boot run-nodes run-nodes "init_on_alloc=0" --smp 3 --mem 2048 --nodes 4 --memory-only-node ||
    vmlab_fail "the guest did not finish"

vm_expect_rc run-nodes run 0
before=$(vm_section run-nodes pools-before)
[[ "$(vm_section run-nodes pools-after)" == "$before" ]] ||
    vmlab_fail "run left the pools changed: $(vm_section run-nodes pools-after | tr '\n' ';')"

# 16 MiB samples: 8 pages per node with CPUs, 24 in all, split over the 4 memory nodes as the
# boot would split them (the report's expected_node_pages: 6 each at 1 and 2 threads per node,
# 12, 12, 0, 0 at 4, in chunks of 2).
peaks=$(vm_section run-nodes peaks)
python3 - "$peaks" "$(vm_section run-nodes report)" <<'PY' || vmlab_fail "run-nodes: the per-node counters moved where they should not: $(tr '\n' ';' <<<"$peaks")"
import json
import sys
peaks = {int(n): (int(nr), int(surplus)) for n, nr, surplus in (line.split() for line in sys.argv[1].splitlines())}
report = json.loads(sys.argv[2])
assert sorted(peaks) == [0, 1, 2, 3], peaks
share = [max(p["expected_node_pages"][i] for p in report["sweep"]["points"] if p["phase"] in ("alloc", "zero"))
         for i in range(4)]
assert share == [12, 12, 6, 6], share
# The zero phase's pool (the most any count takes from a node) stays while the alloc phase
# faults surplus pages beside it. The sampler shares the CPUs with the run's threads and may miss
# a short phase, so no node may pass its bound, and some surplus must have been seen.
for node, (nr, surplus) in peaks.items():
    assert surplus <= share[node] and surplus <= nr <= 2 * share[node], peaks
assert any(surplus > 0 for _, surplus in peaks.values()), peaks
PY

vm_check_json run-nodes report <<'PY'
params = doc["sweep"]["parameters"]
assert params["nodes"] == [0, 1, 2], params
assert params["placement"] == "boot" and params["memory_nodes"] == [0, 1, 2, 3], params
assert all(p["pages_per_node"] == 8 and p["shortfall_pages"] == 0 for p in doc["sweep"]["points"]), doc["sweep"]["points"]
sku = doc["sku"]
assert sku["nodes"] == 4 and sku["hardware_threads_per_node"] == 1, sku
fit = doc["fit"]
assert fit["key"]["nodes"] == 3, fit["key"]
for p in fit["predictions"]:
    per_node = p["threads_per_node"]
    if float(per_node).is_integer():
        assert p["hugepage_alloc_threads"] == min(int(per_node) * 3, 3), p
rec = doc["recommendation"]
assert rec["hugepage_alloc_threads"] <= 3, rec
assert rec["default_threads"] == 1, rec
PY
echo "peaks (node nr surplus): $(vm_section run-nodes peaks | tr '\n' ';') recommended $(vm_section run-nodes report | python3 -c 'import json,sys; r=json.load(sys.stdin)["recommendation"]; print(r["decision"], r["hugepage_alloc_threads"])')"
