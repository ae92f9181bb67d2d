#!/usr/bin/env bash
# `hugetune probe` on this machine agrees with what the kernel shows through other paths.
BIN=$1
SRC=$2
source "$(dirname "$0")/lib/common.bash"

expect 0 "" -- probe --json
json=$(cat "$out")
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval('d' + sys.argv[1]))" "$1" <<<"$json"; }
check() {  # check WHAT GOT WANT
    if [[ "$2" != "$3" ]]; then
        echo "FAIL: $1: probe says '$2', the machine says '$3'"
        failures=$((failures + 1))
    else
        echo "ok: $1 = $2"
    fi
}
cpuinfo_field() { awk -F': ' -v k="$1" '$1 ~ "^"k"[[:space:]]*$" {print $2; exit}' /proc/cpuinfo; }

check "cpu.vendor" "$(field "['cpu']['vendor']")" "$(cpuinfo_field vendor_id)"
check "cpu.family" "$(field "['cpu']['family']")" "$(cpuinfo_field 'cpu family')"
check "cpu.model" "$(field "['cpu']['model']")" "$(cpuinfo_field model)"
check "cpu.stepping" "$(field "['cpu']['stepping']")" "$(cpuinfo_field stepping)"
check "topology.pus" "$(field "['topology']['pus']")" "$(nproc --all)"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
check "topology.nodes" "$(field "['topology']['nodes'].__len__()")" "$nodes"
check "kernel.release" "$(field "['kernel']['release']")" "$(uname -r)"
sizes=$(ls /sys/kernel/mm/hugepages 2>/dev/null | sed 's/hugepages-\([0-9]*\)kB/\1/' | sort -n | paste -sd, -)
got_sizes=$(python3 -c "import json,sys; print(','.join(map(str, json.load(sys.stdin)['kernel']['hugepage_sizes_kb'])))" <<<"$json")
check "kernel.hugepage_sizes_kb" "$got_sizes" "$sizes"
hv=False
grep -qw hypervisor /proc/cpuinfo && hv=True
check "virtualization.hypervisor" "$(field "['virtualization']['hypervisor']")" "$hv"
micro=$(field "['cpu']['microarch']")
[[ -n $micro ]] || { echo "FAIL: empty microarch"; failures=$((failures + 1)); }
echo "this machine: $(cpuinfo_field 'model name') -> $micro"

expect 0 "" -- probe
grep -q '^topology ' "$out" || { echo "FAIL: the summary lacks the topology line"; failures=$((failures + 1)); }
finish
