#!/usr/bin/env bash
# Boots that must not verify, each with its reason: hugepage_alloc_threads= without a pool (the
# kernel allocates nothing at boot and logs no allocation line), and the value 0, which the
# kernel ignores for its default (docs/kernel-facts.md "The default thread count").
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare

vm_boot no-pool boot-pool "hugepage_alloc_threads=2 init_on_alloc=0" --smp 2 --mem 1024 ||
    vmlab_fail "the guest did not finish"
vm_expect_rc no-pool verify 1
vm_check_json no-pool verify <<'PY'
assert doc["verified"] is False and doc["log_line"] is None, doc
assert [p["code"] for p in doc["problems"]] == ["no_boot_pool"], doc
PY
vm_section no-pool verify.stderr | grep '^hugetune: error: not verified: .*(no_boot_pool)$' >/dev/null ||
    vmlab_fail "no-pool: verify did not say why on stderr"

vm_boot ignored-value boot-pool "hugepages=128 hugepage_alloc_threads=0 init_on_alloc=0" \
    --smp 2 --mem 1024 || vmlab_fail "the guest did not finish"
vm_section ignored-value kernel-log | grep 'allocation took [0-9]*ms with hugepage_allocation_threads=1$' >/dev/null ||
    vmlab_fail "ignored-value: the kernel did not fall back to its default of 1 thread on 2 CPUs"
vm_check_json ignored-value verify <<'PY'
assert doc["verified"] is False and doc["threads"] == 1, doc
assert [p["code"] for p in doc["problems"]] == ["threads_ignored"], doc
PY
vm_expect_rc ignored-value verify 1
echo "ignored value: $(vm_section ignored-value verify.stderr)"
