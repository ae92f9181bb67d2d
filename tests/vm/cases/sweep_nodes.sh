#!/usr/bin/env bash
# vmlab-arch: amd64 arm64
# A sweep on a real 2-node guest: it measures every phase on both nodes with the pages it asked
# for, leaves every global and per-node pool value as it found it, and after SIGKILL in the grow
# phase, held where the pools are raised, `restore` puts them back.
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare
vm_boot sweep-nodes sweep-nodes "init_on_alloc=0" --smp 2 --mem 1024 --nodes 2 --timeout 300 ||
    vmlab_fail "the guest did not finish"

vm_expect_rc sweep-nodes sweep 0
vm_check_json sweep-nodes sweep-file <<'PY'
assert doc["complete"] is True, doc
params = doc["parameters"]
assert params["nodes"] == [0, 1] and params["threads_per_node"] == [1, 2], params
assert {p["phase"] for p in doc["points"]} == set(params["phases"]), doc["points"]
assert params["placement"] == "boot" and params["memory_nodes"] == [0, 1], params
for point in doc["points"]:
    assert point["pages_per_node"] == 16 and point["shortfall_pages"] == 0, point
    # Boot placement: 32 pages in chunks of 16 or 8, half from each node in every repetition.
    assert point["node_pages"] == [16, 16], point
    # One time per worker: threads per node on each of the 2 nodes; grow has one writer.
    workers = 1 if point["phase"] == "grow" else 2 * point["threads_per_node"]
    assert all(len(ts) == workers for ts in point["thread_seconds"]), point
PY
before=$(vm_section sweep-nodes pools-before)
[[ "$(vm_section sweep-nodes pools-after)" == "$before" ]] ||
    vmlab_fail "the sweep left the pools changed: $(vm_section sweep-nodes pools-after | tr '\n' ';')"

[[ "$(vm_section sweep-nodes killed)" == $'hold: held grow-raised\nkilled 137' ]] ||
    vmlab_fail "the sweep was not killed at its hold: $(vm_section sweep-nodes killed | tr '\n' ';')"
[[ "$(vm_section sweep-nodes pools-killed)" != "$before" ]] ||
    vmlab_fail "the killed sweep left nothing to restore; it was killed too early"
vm_expect_rc sweep-nodes restore 0
[[ "$(vm_section sweep-nodes pools-restored)" == "$before" ]] ||
    vmlab_fail "restore left the pools changed: $(vm_section sweep-nodes pools-restored | tr '\n' ';')"
echo "pools left by the killed sweep (node nr free surplus): $(vm_section sweep-nodes pools-killed | tr '\n' ';')"
echo "restore: $(vm_section sweep-nodes restore) ($(vm_section sweep-nodes killed.stderr | grep 'pool when killed'))"
