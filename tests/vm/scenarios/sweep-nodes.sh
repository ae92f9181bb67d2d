# Guest side: a small sweep on every node, the pools after it, then a sweep killed by SIGKILL
# in its grow phase, the pools left behind, `restore`, and the pools after that. Pools are
# printed as "<node> <nr_hugepages> <free> <surplus>" lines plus a "global" line.
. /vmlab/scenarios/lib.sh

pools() {
    for node in /sys/devices/system/node/node[0-9]*; do
        d=$node/hugepages/hugepages-2048kB
        echo "${node##*node} $(cat "$d/nr_hugepages") $(cat "$d/free_hugepages") $(cat "$d/surplus_hugepages")"
    done
    echo "global $(cat /proc/sys/vm/nr_hugepages) $(cat /proc/sys/vm/nr_overcommit_hugepages)"
}

run_section pools-before pools
run_section sweep hugetune sweep --threads 1,2 --repetitions 1 --sample-mib 32 --out /root/sweep.json --json
run_section sweep-file cat /root/sweep.json
run_section pools-after pools

# Killed while the grow phase holds every node's pool raised, so there is something to restore.
# A repetition raises and lowers the pools within milliseconds: the sweep is held at that point
# (HUGETUNE_TEST_HOLD names a file of ours asking for "grow-raised"; tuner/system/test_hold.hpp),
# and killed once it says it is there. One attempt, no race.
killed_sweep() {
    echo grow-raised >/root/hold
    chmod 600 /root/hold
    HUGETUNE_TEST_HOLD=/root/hold hugetune sweep --threads 1 --repetitions 1 --sample-mib 64 \
        --phases grow --out /root/killed.json >/dev/null 2>&1 &
    pid=$!
    wait_held grow-raised "$pid"
    echo "pool when killed: $(cat /proc/sys/vm/nr_hugepages)" >&2
    kill -KILL "$pid"
    wait "$pid"
    echo "killed $?"
}
run_section killed killed_sweep
run_section pools-killed pools
run_section restore hugetune restore
run_section pools-restored pools
