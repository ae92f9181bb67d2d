#!/usr/bin/env bash
# The whole loop on a real kernel: apply a report's value to a copy of a Debian fixture root,
# boot the guest with exactly the command line the edited /etc/default/grub gives, and in the
# guest verify --report (the real /dev/kmsg, the ledger apply wrote) must verify and write its
# verification into the report. The same report against a boot with another value must not.
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare
hugetune=${VMLAB_HUGETUNE:?VMLAB_HUGETUNE names the host hugetune binary}
fixture=$vmlab_dir/../fixtures/boot/debian
work=$VMLAB_WORK/apply-loop
rm -rf "$work" && mkdir -p "$work/input/vmlab/input"

# The fixture's pool (65536 pages) is far above a small guest; the copy asks for 256 pages.
root=$work/root
cp -a "$fixture" "$root"
sed -i 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="hugepagesz=2M hugepages=256 init_on_alloc=0"/' \
    "$root/etc/default/grub"
report=$work/input/vmlab/input/report.json
cat >"$report" <<'JSON'
{"schema_version": 1,
 "recommendation": {"hugepage_alloc_threads": 2, "kernel_cmdline": "hugepage_alloc_threads=2",
                    "predicted_seconds": 0.02},
 "boot_pool": {"pages": 256, "page_size_kb": 2048, "source": "cmdline"}}
JSON
"$hugetune" apply --report "$report" --root "$root" --no-regenerate >"$work/apply.out" 2>&1 ||
    { cat "$work/apply.out" >&2; vmlab_fail "apply on the fixture copy failed"; }
mkdir -p "$work/input/var/lib/hugetune"
cp "$root/var/lib/hugetune/applied.json" "$work/input/var/lib/hugetune/"

# GRUB puts GRUB_CMDLINE_LINUX, then GRUB_CMDLINE_LINUX_DEFAULT, on a normal entry.
# shellcheck disable=SC1091 # the fixture copy made above
cmdline=$(source "$root/etc/default/grub" && echo "$GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT")
[[ "$cmdline" == *"hugepage_alloc_threads=2"* ]] || vmlab_fail "apply wrote no value: $cmdline"

vm_boot applied verify-report "$cmdline" --smp 2 --mem 1024 --input "$work/input" ||
    vmlab_fail "the guest did not finish"
vm_expect_rc applied verify 0
vm_check_json applied verify <<'PY'
assert doc["verified"] is True and doc["problems"] == [], doc
assert doc["expected_threads"] == 2 and doc["threads"] == 2, doc
assert doc["ratio"] is not None and doc["ratio_refused"] is None, doc
PY
vm_check_json applied report <<'PY'
v = doc["verification"]
assert v["verified"] is True and v["threads"] == 2, v
assert v["kernel_release"].endswith("-cloud-amd64") and v["boot_id"], v
PY
echo "applied: $cmdline"
echo "applied: $(vm_section applied kernel-log)"

# Not regenerated or another entry booted: the running command line lacks the applied value.
vm_boot not-applied verify-report "${cmdline/hugepage_alloc_threads=2/hugepage_alloc_threads=1}" \
    --smp 2 --mem 1024 --input "$work/input" || vmlab_fail "the guest did not finish"
vm_expect_rc not-applied verify 1
vm_check_json not-applied verify <<'PY'
assert doc["verified"] is False and doc["threads"] == 1, doc
assert "not_applied" in [p["code"] for p in doc["problems"]], doc
PY
echo "not applied: $(vm_section not-applied verify.stderr)"
