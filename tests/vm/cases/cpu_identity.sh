#!/usr/bin/env bash
# vmlab-arch: arm64
# probe on an arm64 guest names its CPU from the MIDR register the kernel shows in sysfs
# (docs/kernel-facts.md "The CPU's identity on arm64"). QEMU's emulated max CPU is no core of
# the table (implementer 0x00, reserved for software): the probe says so with its codes, and
# its fields agree with the register's and with /proc/cpuinfo's. Under KVM the guest shows the
# host's own core, which the table may name.
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare
vm_boot cpu-identity probe "" --smp 2 --mem 512 || vmlab_fail "the guest did not finish"

vm_expect_rc cpu-identity probe 0
midr=$(vm_section cpu-identity midr)
cpuinfo=$(vm_section cpu-identity cpuinfo)
vm_check_json cpu-identity probe <<PY
import re
value = int("$midr", 16)
fields = {"implementer": value >> 24 & 0xff, "variant": value >> 20 & 0xf,
          "architecture": value >> 16 & 0xf, "part": value >> 4 & 0xfff, "revision": value & 0xf}
cpu = doc["cpu"]
assert cpu["midr"] == fields, (cpu, fields)
cpuinfo = dict((k.strip(), v.strip()) for k, v in (l.split(":", 1) for l in """$cpuinfo""".splitlines() if ":" in l))
assert int(cpuinfo["CPU implementer"], 16) == fields["implementer"], cpuinfo
assert int(cpuinfo["CPU part"], 16) == fields["part"], cpuinfo
if "$vmlab_accel_name" == "tcg":
    # A core the table does not name keeps its identity name (model/microarch.hpp), not unknown.
    assert cpu["microarch"] == "arm-%02x-%03x" % (fields["implementer"], fields["part"]), cpu
    assert cpu["vendor"] == "0x%02x" % fields["implementer"], cpu
    assert cpu["model_name"] == "unknown Arm core (implementer 0x%02x, part 0x%03x)" % (
        fields["implementer"], fields["part"]), cpu
else:
    assert cpu["model_name"], cpu
assert doc["topology"]["pus"] == 2 and len(doc["topology"]["nodes"]) == 1, doc["topology"]
PY
name=$(vm_section cpu-identity probe | python3 -c 'import json,sys; print(json.load(sys.stdin)["cpu"]["model_name"])')
vm_section cpu-identity probe-text | grep -F "cpu       $name" >/dev/null ||
    vmlab_fail "the probe's summary does not name the CPU: $(vm_section cpu-identity probe-text | head -n 3 | tr '\n' ';')"
echo "midr_el1 $midr: $name"
