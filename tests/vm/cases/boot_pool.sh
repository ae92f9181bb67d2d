#!/usr/bin/env bash
# A real boot pool allocated by the kernel with hugepage_alloc_threads=2: verify finds the
# kernel's own allocation line on the real /dev/kmsg with 2 threads and verifies it against the
# booted command line; probe reads the same line, the pool and the parameter. The kernel takes a
# value above the CPU count as it is (docs/kernel-facts.md: it does not cap it).
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare
vm_boot boot-pool boot-pool "hugepages=256 hugepage_alloc_threads=2 init_on_alloc=0" \
    --smp 2 --mem 1024 || vmlab_fail "the guest did not finish"

vm_expect_rc boot-pool verify 0
vm_check_json boot-pool verify <<'PY'
assert doc["verified"] is True and doc["problems"] == [], doc
assert doc["threads"] == 2 and doc["cmdline_value"] == "2", doc
assert isinstance(doc["measured_ms"], int) and doc["measured_ms"] >= 0, doc
assert doc["log_line"].startswith("HugeTLB: allocation took "), doc
assert doc["pool"] == {"init_on_alloc": False, "page_size_kb": 2048, "pages": 256}, doc
PY
vm_expect_rc boot-pool probe 0
vm_check_json boot-pool probe <<'PY'
kernel = doc["kernel"]
assert kernel["supports_hugepage_alloc_threads"] is True, kernel
assert kernel["cmdline_alloc_threads"] == 2, kernel
assert kernel["last_boot_allocation"]["threads"] == 2, kernel
assert kernel["init_on_alloc"] is False and kernel["init_on_alloc_source"] == "cmdline", kernel
pool = next(p for p in kernel["pools"] if p["size_kb"] == 2048)
assert pool["nr"] == 256 and pool["free"] == 256, pool
assert len(doc["topology"]["nodes"]) == 1 and doc["topology"]["pus"] == 2, doc["topology"]
PY
echo "boot pool: $(vm_section boot-pool kernel-log | grep 'allocation took')"

vm_boot oversubscribed boot-pool "hugepages=128 hugepage_alloc_threads=8 init_on_alloc=0" \
    --smp 2 --mem 1024 || vmlab_fail "the guest did not finish"
vm_expect_rc oversubscribed verify 0
vm_check_json oversubscribed verify <<'PY'
assert doc["verified"] is True and doc["threads"] == 8, doc
PY
echo "oversubscribed: $(vm_section oversubscribed kernel-log | grep 'allocation took')"
