# Guest side, booted with a small threaded pool (`hugepages=P hugepage_alloc_threads=T`, P and T
# from the command line): where the kernel put the booted pool's pages, the plan of a sweep whose
# sample and total are that P and T, then a sweep held once every thread has faulted its pages
# (HUGETUNE_TEST_HOLD, "alloc-faulted"; tuner/system/test_hold.hpp): the interleaved mappings'
# pages per node from /proc/PID/numa_maps and the CPU each pinned thread may run on, read while
# the pages are still mapped, then released. It judges nothing.
. /vmlab/scenarios/lib.sh

booted() {
    for node in /sys/devices/system/node/node[0-9]*; do
        echo "${node##*node} $(cat "$node/hugepages/hugepages-2048kB/nr_hugepages")"
    done
}

# The sample per node that makes the sweep's total the booted pool: P over the nodes with CPUs.
cpu_nodes=0
for node in /sys/devices/system/node/node[0-9]*; do
    [ -n "$(cat "$node/cpulist")" ] && cpu_nodes=$((cpu_nodes + 1))
done
pages=$(cmdline_value hugepages)
threads=$(cmdline_value hugepage_alloc_threads)
sample_mib=$((pages / cpu_nodes * 2))
per_node=$((threads / cpu_nodes))

run_section booted booted
run_section kernel-log sh -c 'dmesg | grep "allocation took"'
run_section node-cpus sh -c 'for n in /sys/devices/system/node/node[0-9]*; do echo "${n##*node} $(cat $n/cpulist)"; done'
run_section plan hugetune sweep --dry-run --json --threads "$per_node" --sample-mib "$sample_mib"

# The booted pool out of the way, so the sweep's surplus pages are all its own.
echo 0 >/proc/sys/vm/nr_hugepages

held_sweep() {
    echo alloc-faulted >/root/hold
    chmod 600 /root/hold
    HUGETUNE_TEST_HOLD=/root/hold hugetune sweep --threads "$per_node" --phases alloc \
        --repetitions 1 --sample-mib "$sample_mib" --out /root/held.json >/dev/null 2>/root/held.err &
    pid=$!
    wait_held alloc-faulted "$pid"
    grep interleave "/proc/$pid/numa_maps" | sed 's/^/map /'
    for task in /proc/$pid/task/*; do
        echo "task $(grep Cpus_allowed_list "$task/status" | cut -f2)"
    done
    echo release >/root/hold
    wait "$pid"
    echo "sweep $?"
}
run_section held held_sweep
run_section pools-after sh -c 'cat /proc/sys/vm/nr_hugepages /proc/sys/vm/nr_overcommit_hugepages; cat /sys/devices/system/node/node*/hugepages/hugepages-2048kB/nr_hugepages'
run_section held-file cat /root/held.json
run_section held-err cat /root/held.err
