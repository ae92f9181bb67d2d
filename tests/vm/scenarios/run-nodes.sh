# Guest side, booted without a pool on a multi-node guest: `hugetune run` with small samples while
# a sampler records the largest nr_hugepages and surplus_hugepages each node reached, then the
# report and the pools after it. Peaks are "<node> <largest nr> <largest surplus>" lines; pools
# "<node> <nr> <free> <surplus>" lines and a "global <nr> <overcommit>" line.
. /vmlab/scenarios/lib.sh

pools() {
    for node in /sys/devices/system/node/node[0-9]*; do
        d=$node/hugepages/hugepages-2048kB
        echo "${node##*node} $(cat "$d/nr_hugepages") $(cat "$d/free_hugepages") $(cat "$d/surplus_hugepages")"
    done
    echo "global $(cat /proc/sys/vm/nr_hugepages) $(cat /proc/sys/vm/nr_overcommit_hugepages)"
}

# Until /tmp/stop-sampler exists: every node's counters, as fast as the shell reads them.
sample_peaks() {
    while [ ! -e /tmp/stop-sampler ]; do
        for node in /sys/devices/system/node/node[0-9]*; do
            d=$node/hugepages/hugepages-2048kB
            echo "${node##*node} $(cat "$d/nr_hugepages") $(cat "$d/surplus_hugepages")"
        done
    done | awk '{ seen[$1] = 1; if ($2 > nr[$1]) nr[$1] = $2; if ($3 > sp[$1]) sp[$1] = $3 }
        END { for (n in seen) print n, nr[n] + 0, sp[n] + 0 }' | sort -n >/tmp/peaks
}

run_section pools-before pools
sample_peaks &
sampler=$!
run_section run hugetune run --threads 1,2,4 --repetitions 2 --sample-mib 16 --boot-pages 128 \
    --report /root/report.json
touch /tmp/stop-sampler
wait "$sampler"
run_section peaks cat /tmp/peaks
run_section pools-after pools
run_section report cat /root/report.json
