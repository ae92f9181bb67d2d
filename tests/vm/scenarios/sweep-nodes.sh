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

# Killed once the grow phase has raised a pool, so there is something to restore. A repetition
# grows and shrinks the pool, so the kill can land after the shrink: then the pools are put
# back and it is tried again, at most 5 times.
kill_in_grow() {
    hugetune sweep --threads 1 --repetitions 50 --sample-mib 64 --phases grow --out /root/killed.json >/dev/null 2>&1 &
    pid=$!
    tries=0
    while [ "$(cat /proc/sys/vm/nr_hugepages)" = 0 ] && [ $tries -lt 3000 ]; do
        sleep 0.01
        tries=$((tries + 1))
    done
    kill -KILL "$pid"
    wait "$pid"
    status=$?
}
killed_sweep() {
    attempt=1
    while :; do
        kill_in_grow
        [ "$(cat /proc/sys/vm/nr_hugepages)" != 0 ] || [ $attempt -ge 5 ] && break
        hugetune restore >/dev/null
        attempt=$((attempt + 1))
    done
    echo "killed $status"
    echo "attempts $attempt" >&2
}
run_section killed killed_sweep
run_section pools-killed pools
run_section restore hugetune restore
run_section pools-restored pools
