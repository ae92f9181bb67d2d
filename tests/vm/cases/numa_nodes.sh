#!/usr/bin/env bash
# NUMA guests: 2 nodes with a CPU each, and 4 nodes of which the last has memory and no CPUs.
# probe sees every node with its CPUs and memory, and the per-node pool counters the kernel
# spread the boot pool over.
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare

vm_boot numa2 boot-pool "hugepages=128 init_on_alloc=0" --smp 2 --mem 1024 --nodes 2 ||
    vmlab_fail "the guest did not finish"
vm_expect_rc numa2 probe 0
vm_check_json numa2 probe <<'PY'
nodes = doc["topology"]["nodes"]
assert [n["id"] for n in nodes] == [0, 1], nodes
assert [n["cpus"] for n in nodes] == [[0], [1]], nodes
assert all(n["memory_bytes"] > 256 << 20 for n in nodes), nodes
pool = next(p for p in doc["kernel"]["pools"] if p["size_kb"] == 2048)
assert pool["nr"] == 128, pool
per_node = {n["node"]: n["nr"] for n in pool["nodes"]}
assert sorted(per_node) == [0, 1] and sum(per_node.values()) == 128, pool
assert all(count > 0 for count in per_node.values()), pool
PY
echo "numa2 pool per node: $(vm_section numa2 probe | python3 -c 'import json,sys; d=json.load(sys.stdin); print([n["nr"] for p in d["kernel"]["pools"] if p["size_kb"]==2048 for n in p["nodes"]])')"

vm_boot numa4 boot-pool "hugepages=128 init_on_alloc=0" --smp 3 --mem 1024 --nodes 4 \
    --memory-only-node || vmlab_fail "the guest did not finish"
vm_expect_rc numa4 probe 0
vm_check_json numa4 probe <<'PY'
nodes = doc["topology"]["nodes"]
assert [n["id"] for n in nodes] == [0, 1, 2, 3], nodes
assert [n["cpus"] for n in nodes] == [[0], [1], [2], []], nodes
assert all(n["memory_bytes"] > 128 << 20 for n in nodes), nodes
pool = next(p for p in doc["kernel"]["pools"] if p["size_kb"] == 2048)
assert sorted(n["node"] for n in pool["nodes"]) == [0, 1, 2, 3], pool
assert sum(n["nr"] for n in pool["nodes"]) == 128, pool
PY
echo "numa4 pool per node: $(vm_section numa4 probe | python3 -c 'import json,sys; d=json.load(sys.stdin); print([n["nr"] for p in d["kernel"]["pools"] if p["size_kb"]==2048 for n in p["nodes"]])')"
