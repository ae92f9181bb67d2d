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
# grows and shrinks the pool within milliseconds, so a kill sent on sight of a raised pool can
# land after the shrink. The sweep is stopped first (SIGSTOP), the pool read again while none of
# its threads can run, and killed only when it is still raised; otherwise it goes on (SIGCONT).
all_stopped() {
    for task in /proc/"$1"/task/*; do
        set -- $(cat "$task/stat" 2>/dev/null) x x x
        [ "$3" = T ] || [ "$3" = t ] || [ "$3" = x ] || return 1
    done
}
kill_in_grow() {
    hugetune sweep --threads 1 --repetitions 50 --sample-mib 64 --phases grow --out /root/killed.json >/dev/null 2>&1 &
    pid=$!
    tries=0
    while [ $tries -lt 3000 ]; do
        if [ "$(cat /proc/sys/vm/nr_hugepages)" != 0 ]; then
            kill -STOP "$pid"
            waited=0
            while ! all_stopped "$pid" && [ $waited -lt 200 ]; do
                sleep 0.01
                waited=$((waited + 1))
            done
            [ "$(cat /proc/sys/vm/nr_hugepages)" != 0 ] && break
            kill -CONT "$pid"
        fi
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
        [ "$(cat /proc/sys/vm/nr_hugepages)" != 0 ] || [ $attempt -ge 8 ] && break
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
