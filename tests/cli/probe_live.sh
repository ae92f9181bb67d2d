#!/usr/bin/env bash
# `hugetune probe` on this machine agrees with what the kernel shows through other paths.
source "$(dirname "$0")/lib/harness.bash"

expect 0 "$bin" probe --json
cp "$out" "$work/probe.json"
field() { python3 -S -c "import json,sys; d=json.load(open(sys.argv[2])); print(eval('d' + sys.argv[1]))" "$1" "$work/probe.json"; }
check() {  # check WHAT GOT WANT
    [[ "$2" == "$3" ]] || fail "$1: probe says '$2', the machine says '$3'"
    echo "ok: $1 = $2"
}
cpuinfo_field() { awk -F': ' -v k="$1" '$1 ~ "^"k"[[:space:]]*$" {print $2; exit}' /proc/cpuinfo; }

check "cpu.vendor" "$(field "['cpu']['vendor']")" "$(cpuinfo_field vendor_id)"
check "cpu.family" "$(field "['cpu']['family']")" "$(cpuinfo_field 'cpu family')"
check "cpu.model" "$(field "['cpu']['model']")" "$(cpuinfo_field model)"
check "cpu.stepping" "$(field "['cpu']['stepping']")" "$(cpuinfo_field stepping)"
check "topology.pus" "$(field "['topology']['pus']")" "$(nproc --all)"
nodes=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' 2>/dev/null | wc -l || true)
check "topology.nodes" "$(field "['topology']['nodes'].__len__()")" "$nodes"
check "kernel.release" "$(field "['kernel']['release']")" "$(uname -r)"
sizes=$(find /sys/kernel/mm/hugepages -mindepth 1 -maxdepth 1 -name 'hugepages-*kB' -printf '%f\n' 2>/dev/null |
    sed 's/hugepages-\([0-9]*\)kB/\1/' | sort -n | paste -sd, - || true)
check "kernel.hugepage_sizes_kb" "$(field "['kernel']['hugepage_sizes_kb']" | tr -d '[] ')" "$sizes"
hv=False
if grep -qw hypervisor /proc/cpuinfo; then hv=True; fi
check "virtualization.hypervisor" "$(field "['virtualization']['hypervisor']")" "$hv"
micro=$(field "['cpu']['microarch']")
[[ -n $micro ]] || fail "empty microarch"
echo "this machine: $(cpuinfo_field 'model name') -> $micro"

expect 0 "$bin" probe
stdout_matches '^topology '
echo "probe_live: ok"
