# Guest side: what the machine says of its CPU (the MIDR register in sysfs, /proc/cpuinfo's first
# block) and hugetune's probe of it, as JSON and as its summary.
. /vmlab/scenarios/lib.sh
run_section midr cat /sys/devices/system/cpu/cpu0/regs/identification/midr_el1
run_section cpuinfo sh -c 'sed -n "1,/^$/p" /proc/cpuinfo'
run_section probe hugetune probe --json
run_section probe-text hugetune probe
