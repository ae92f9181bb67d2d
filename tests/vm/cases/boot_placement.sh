#!/usr/bin/env bash
# The sweep's boot placement against real boots (docs/kernel-facts.md "Where the boot's workers
# run and where their pages come from"), in a 2-node guest and a 4-node guest whose last node has
# memory and no CPUs. Each boots a pool whose per-node split tells the kernel's rule apart from a
# plain interleave (2 nodes: 6 pages by 2 threads, chunks of 3 each starting at node 0, so 4 and
# 2; 4 nodes: 15 pages by 3 threads, chunks of 5 over 4 memory nodes, so 6, 3, 3, 3), and checks
#  - the booted pool per node is what the plan of a sweep of that total and sample assumes;
#  - during a sweep held after its alloc faults, every chunk mapping's pages per node
#    (/proc/PID/numa_maps) are one chunk's share, and the pinned threads run one per node with
#    CPUs, the first on the boot CPU's node;
#  - the sweep file records the placement and every memory node's pages, with no shortfall, and
#    every pool is back at 0 after it.
# Emulated NUMA nodes share one host memory: this checks where pages land, never how long they
# take. One attempt per guest, no retry.
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare

check_guest() {
    local name=$1 expected=$2 label=$3
    vm_expect_rc "$name" plan 0
    local booted plan held
    booted=$(vm_section "$name" booted)
    plan=$(vm_section "$name" plan)
    held=$(vm_section "$name" held)
    vm_expect_rc "$name" held 0
    [[ "$(vm_section "$name" pools-after | sort -u)" == 0 ]] ||
        vmlab_fail "$name: the held sweep left a pool: $(vm_section "$name" pools-after | tr '\n' ';')"
    python3 - "$expected" "$booted" "$plan" "$held" "$(vm_section "$name" node-cpus)" \
        "$(vm_section "$name" held-file)" "$label" <<'PY' || vmlab_fail "$name: boot placement: $(tr '\n' ';' <<<"$booted") | $(tr '\n' ';' <<<"$held")"
import json
import re
import sys

expected = [int(x) for x in sys.argv[1].split(",")]
booted = [int(line.split()[1]) for line in sys.argv[2].splitlines()]
plan = json.loads(sys.argv[3])
held = sys.argv[4].splitlines()
node_cpus = {}
for line in sys.argv[5].splitlines():
    fields = line.split()
    node_cpus[int(fields[0])] = fields[1] if len(fields) > 1 else ""
sweep = json.loads(sys.argv[6])

# The kernel's own split of the booted pool is the rule's, and the plan assumes the same.
assert booted == expected, ("booted", booted, expected)
alloc = next(p for p in plan["points"] if p["phase"] == "alloc")
assert alloc["node_pages"] == booted, ("plan", alloc, booted)
assert plan["placement"] == "boot", plan
assert [m["node"] for m in plan["memory_nodes"]] == list(range(len(booted))), plan

# While held: one interleaved mapping per chunk, each with one chunk's pages per node, all nodes.
assert held[0] == "hold: held alloc-faulted", held
memory = len(booted)
chunks = alloc["chunk_pages"]
maps = [l for l in held if l.startswith("map ")]
assert len(maps) == len(chunks), ("maps", maps, chunks)
for line in maps:
    counts = {int(n): int(c) for n, c in re.findall(r"\bN(\d+)=(\d+)", line)}
    size = sum(counts.values())
    share = [size // memory + (1 if i < size % memory else 0) for i in range(memory)]
    assert [counts.get(i, 0) for i in range(memory)] == share, ("map", line, share)
assert sorted(sum(int(c) for c in re.findall(r"\bN\d+=(\d+)", l)) for l in maps) == sorted(chunks), maps

# The pinned threads: one CPU each, the first on the boot CPU's node, one per node with CPUs.
pinned = [l.split()[1] for l in held if l.startswith("task ") and re.fullmatch(r"\d+", l.split()[1])]
workers = alloc["worker_nodes"]
cpu_node = {}
for node, cpus in node_cpus.items():
    for part in cpus.split(","):
        if part:
            lo, _, hi = part.partition("-")
            for cpu in range(int(lo), int(hi or lo) + 1):
                cpu_node[cpu] = node
assert sorted(cpu_node[int(c)] for c in pinned) == sorted(workers), ("threads", pinned, workers)
assert workers[0] == cpu_node[0], workers

# The sweep file: the placement and each memory node's pages, no shortfall.
assert held[-1] == "sweep 0", held
point = next(p for p in sweep["points"] if p["phase"] == "alloc")
assert sweep["parameters"]["placement"] == "boot", sweep["parameters"]
assert point["expected_node_pages"] == booted and point["node_pages"] == booted, point
assert point["shortfall_pages"] == 0, point
spread = [int(c) for c in re.findall(r"\bN\d+=(\d+)", maps[0])]
threads_on = sorted(cpu_node[int(c)] for c in pinned)
print(f"{sys.argv[7]}: booted per node {booted} as planned, chunks {chunks} each spread "
      f"{spread}, threads on nodes {threads_on}")
PY
}

vm_boot placement2 boot-placement "hugepages=6 hugepage_alloc_threads=2 init_on_alloc=0" \
    --smp 2 --mem 1024 --nodes 2 || vmlab_fail "the 2-node guest did not finish"
check_guest placement2 4,2 "2 nodes"

vm_boot placement4 boot-placement "hugepages=15 hugepage_alloc_threads=3 init_on_alloc=0" \
    --smp 3 --mem 1024 --nodes 4 --memory-only-node || vmlab_fail "the 4-node guest did not finish"
check_guest placement4 6,3,3,3 "4 nodes, node 3 memory only"
