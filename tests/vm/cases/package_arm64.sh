#!/usr/bin/env bash
# vmlab-arch: arm64
# The arm64 Debian package (make package-arm64) in an arm64 guest: its files unpacked with
# dpkg-deb -x over the guest's root, as dpkg would place them (the libraries it depends on are
# the lab's, the arm64 multiarch ones). The binary that runs is the package's, it says the
# package's version, and it probes the machine. The package is the one beside the binary
# (<build>/package/hugetune_*_arm64.deb), or VMLAB_PACKAGE; without one the case is skipped.
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare
hugetune=${VMLAB_HUGETUNE:?VMLAB_HUGETUNE names the host hugetune binary}
deb=${VMLAB_PACKAGE:-$(find "$(dirname "$hugetune")/package" -maxdepth 1 -name 'hugetune_*_arm64.deb' 2>/dev/null | sort -V | tail -n 1)}
[[ -n "$deb" && -f "$deb" ]] || vmlab_skip "no arm64 package beside $hugetune: make package-arm64 builds one"
work=$VMLAB_WORK/package-arm64
rm -rf "$work" && mkdir -p "$work"
dpkg-deb -x "$deb" "$work/root" || vmlab_fail "dpkg-deb -x $deb failed"
version=$(dpkg-deb -f "$deb" Version)
packaged=$(sha256sum "$work/root/usr/bin/hugetune" | cut -d' ' -f1)

vm_boot package-arm64 package "" --smp 2 --mem 512 --input "$work/root" ||
    vmlab_fail "the guest did not finish"
vm_expect_rc package-arm64 binary 0
[[ "$(vm_section package-arm64 binary)" == $'/usr/bin/hugetune\n'"$packaged" ]] ||
    vmlab_fail "the guest ran another binary than the package's: $(vm_section package-arm64 binary | tr '\n' ' ')"
vm_expect_rc package-arm64 version 0
got=$(vm_section package-arm64 version)
[[ $got =~ ^hugetune\ ${version//./\\.}\ \(([0-9a-f]{7,40}|unknown)\)$ ]] ||
    vmlab_fail "hugetune --version in the guest says '$got', the package is $version"
vm_expect_rc package-arm64 probe 0
vm_check_json package-arm64 probe <<'PY'
assert doc["kernel"]["release"].endswith("-cloud-arm64"), doc["kernel"]["release"]
assert doc["cpu"]["midr"] is not None, doc["cpu"]
PY
vm_expect_rc package-arm64 files 0
echo "$(basename "$deb"): $got in the guest, probe ran"
