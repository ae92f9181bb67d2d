#!/usr/bin/env bash
# vmlab-arch: arm64
# vmlab-alone: it tells two allocation lines of one boot apart by their times (the larger pool at least three times the smaller one's); another case beside it could stretch either
# Boot pools of two non-gigantic sizes in one boot (arm64 with 4 KiB pages: 64K, contiguous PTEs,
# and 2M, a PMD): the kernel logs one allocation line per size, in the order of its sizes
# (docs/kernel-facts.md "The boot allocation log line"), and verify must take the line of the size
# it verifies: the kernel's default size (2M) without a report, though 64K comes first on the
# command line, and the report's pool with one.
# The pools differ twelvefold in bytes and the kernel zeroes them as it allocates
# (CONFIG_INIT_ON_ALLOC_DEFAULT_ON), so the larger pool's line is the longer one: the case tells
# the two lines apart by the kernel's own figures, not by hugetune's pairing.
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare
work=$VMLAB_WORK/page-sizes
rm -rf "$work" && mkdir -p "$work/input/vmlab/input"
# Reports that predict for one pool each (verify takes the size to verify from the report).
for pool in "64 512 0.03" "2048 192 0.3"; do
    read -r size_kb pages seconds <<<"$pool"
    cat >"$work/input/vmlab/input/report-$size_kb.json" <<JSON
{"schema_version": 1,
 "recommendation": {"hugepage_alloc_threads": 2, "kernel_cmdline": "hugepage_alloc_threads=2",
                    "predicted_seconds": $seconds},
 "boot_pool": {"pages": $pages, "page_size_kb": $size_kb, "source": "cmdline"}}
JSON
done
vm_boot page-sizes page-sizes \
    "hugepagesz=64K hugepages=512 hugepagesz=2M hugepages=192 hugepage_alloc_threads=2" \
    --smp 2 --mem 1024 --input "$work/input" || vmlab_fail "the guest did not finish"

log=$(vm_section page-sizes kernel-log)
for section in verify verify-64k verify-2m; do
    json=$(vm_section page-sizes "$section")
    python3 - "$log" "$json" "$section" <<'PY' || vmlab_fail "page-sizes: '$section' took the wrong line or pool: $json"
import json, re, sys
log, doc, section = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
lines = re.findall(r"HugeTLB: allocation took (\d+)ms with hugepage_allocation_threads=(\d+)", log)
registered = re.findall(r"HugeTLB: registered ([0-9.]+ [KMG]iB) page size, pre-allocated (\d+) pages", log)
assert len(lines) == 2 and all(t == "2" for _, t in lines), lines
assert ("64.0 KiB", "512") in registered and ("2.00 MiB", "192") in registered, registered
small, large = sorted(int(ms) for ms, _ in lines)
assert large >= 3 * max(small, 1), f"the two lines are too close to tell apart: {lines}"
want = {"verify": (2048, 192, large), "verify-64k": (64, 512, small), "verify-2m": (2048, 192, large)}[section]
assert doc["pool"]["page_size_kb"] == want[0] and doc["pool"]["pages"] == want[1], doc
assert doc["measured_ms"] == want[2] and doc["threads"] == 2, doc
assert doc["log_line"] == f"HugeTLB: allocation took {want[2]}ms with hugepage_allocation_threads=2", doc
assert not any(p["code"] in ("threads_mismatch", "faster_than_zeroing", "pool_shortfall") for p in doc["problems"]), doc
PY
done
vm_expect_rc page-sizes verify 0
vm_check_json page-sizes probe <<'PY'
kernel = doc["kernel"]
assert kernel["base_page_kb"] == 4 and kernel["largest_buddy_block_kb"] == 4096, kernel
assert kernel["hugepage_sizes_kb"] == [64, 2048, 32768, 1048576], kernel["hugepage_sizes_kb"]
assert kernel["default_hugepage_size_kb"] == 2048, kernel
pools = {p["size_kb"]: p["nr"] for p in kernel["pools"]}
assert pools[64] == 512 and pools[2048] == 192 and pools[32768] == 0, pools
assert [(p["size_kb"], p["pages"]) for p in kernel["boot_pool"]] == [(64, 512), (2048, 192)], kernel["boot_pool"]
PY
echo "lines: $(vm_section page-sizes kernel-log | grep -o 'allocation took [0-9]*ms' | tr '\n' ';')" \
    "verify took $(vm_section page-sizes verify | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["measured_ms"], "ms for", d["pool"]["page_size_kb"], "kB")'), with the 64K report $(vm_section page-sizes verify-64k | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["measured_ms"], "ms for", d["pool"]["page_size_kb"], "kB")')"
