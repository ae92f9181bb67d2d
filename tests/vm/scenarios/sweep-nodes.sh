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

# Killed once the grow phase has raised a pool, so there is something to restore.
killed_sweep() {
    hugetune sweep --threads 1 --repetitions 50 --sample-mib 64 --phases grow --out /root/killed.json >/dev/null 2>&1 &
    pid=$!
    tries=0
    while [ "$(cat /proc/sys/vm/nr_hugepages)" = 0 ] && [ $tries -lt 600 ]; do
        sleep 0.05
        tries=$((tries + 1))
    done
    kill -KILL "$pid"
    wait "$pid"
    echo "killed $?"
}
run_section killed killed_sweep
run_section pools-killed pools
run_section restore hugetune restore
run_section pools-restored pools
