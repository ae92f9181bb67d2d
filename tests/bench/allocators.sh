#!/usr/bin/env bash
# `fleet ingest` under each memory allocator, side by side on one set of reports: each round
# ingests the reports with every allocator in turn, into a new SQLite file and a new database of
# one throwaway PostgreSQL server (a unix socket in the scratch directory, stopped by its PID),
# and prints the seconds, reports per second and peak resident memory of each; then each
# allocator's median rate and its ratio to glibc's. The allocators:
#   own       HUGETUNE_OWN: a binary with an operator new of its own (the small-block cache
#             hugetune had until 2026-12-06); "-" leaves it out
#   glibc     HUGETUNE_GLIBC: a binary without one, glibc's malloc as Debian ships it
#   tcache    the same with glibc's per-thread cache holding 1,024 blocks of a size, not 7
#             (GLIBC_TUNABLES=glibc.malloc.tcache_count=1024)
#   mimalloc  the same with libmimalloc.so.2 preloaded (Debian package libmimalloc2.0)
#   jemalloc  the same with libjemalloc.so.2 preloaded (Debian package libjemalloc2)
# An allocator whose library is not installed is left out, said so. A measurement: it asserts
# no time; the rounds run in turns, so every allocator saw the same load.
#     usage: tests/bench/allocators.sh HUGETUNE_OWN HUGETUNE_GLIBC SOURCE_DIR REPORTS_DIR [ROUNDS]
# REPORTS_DIR: reports as `fleet ingest` reads a directory (gen-fleet's, its truth.json moved
# out). ROUNDS: 3 unless given.
usage="usage: allocators.sh HUGETUNE_OWN HUGETUNE_GLIBC SOURCE_DIR REPORTS_DIR [ROUNDS]"
own=${1:?$usage}
glibc=${2:?$usage}
source "$(dirname "$0")/../cli/lib/harness.bash" "$glibc" "${3:?$usage}"
source "$(dirname "$0")/../cli/lib/fleet.bash"
reports_dir=${4:?$usage}
rounds=${5:-3}
lib=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
n=$(find "$reports_dir" -name '*.json' | wc -l)
[[ $own == - ]] && echo "own: left out" || echo "own: $own ($(sha256sum "$own" | cut -c1-12))"
echo "glibc: $glibc ($(sha256sum "$glibc" | cut -c1-12)), $(ldd --version | head -1)"
declare -A run
run[own]="$own"
run[glibc]="$glibc"
run[tcache]="env GLIBC_TUNABLES=glibc.malloc.tcache_count=1024 $glibc"
names=(glibc tcache)
[[ $own == - ]] || names=(own "${names[@]}")
for pair in mimalloc:libmimalloc.so.2 jemalloc:libjemalloc.so.2; do
    name=${pair%%:*} so=$lib/${pair#*:}
    if [[ -e $so ]]; then
        run[$name]="env LD_PRELOAD=$so $glibc"
        names+=("$name")
        echo "$name: $so ($(dpkg -S "$so" 2>/dev/null | cut -d: -f1) $(dpkg-query -W -f='${Version}' "$(dpkg -S "$so" 2>/dev/null | cut -d: -f1)" 2>/dev/null))"
    else
        echo "$name: $so is not installed; left out"
    fi
done
echo "reports: $n in $reports_dir; load average $(cut -d' ' -f1-3 /proc/loadavg)"
start_postgres
declare -A rates peaks
i=0
for ((round = 1; round <= rounds; round++)); do
    for name in "${names[@]}"; do
        i=$((i + 1))
        # shellcheck disable=SC2086 # the command is words on purpose
        r=$(timed ${run[$name]} fleet ingest --db "$work/al$i.db" "$reports_dir")
        rate=$(python3 -S -c "print(round($n / ${r% *}))")
        rates[$name SQLite]+="$rate " peaks[$name SQLite]+="$((${r#* } / 1024)) "
        echo "round $round $name SQLite: ${r% *} s, $rate reports/s, peak memory $((${r#* } / 1024)) MB"
        rm -f "$work/al$i.db"
        psql -X -q "$pg_url" -c "CREATE DATABASE al$i" >/dev/null
        # shellcheck disable=SC2086
        r=$(timed ${run[$name]} fleet ingest --db "${pg_url/\/postgres?//al$i?}" "$reports_dir")
        rate=$(python3 -S -c "print(round($n / ${r% *}))")
        rates[$name PostgreSQL]+="$rate " peaks[$name PostgreSQL]+="$((${r#* } / 1024)) "
        echo "round $round $name PostgreSQL: ${r% *} s, $rate reports/s, peak memory $((${r#* } / 1024)) MB"
        psql -X -q "$pg_url" -c "DROP DATABASE al$i" >/dev/null
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for db in SQLite PostgreSQL; do
    for name in "${names[@]}"; do
        python3 -S -c 'import statistics, sys
rate = statistics.median(map(int, sys.argv[3].split()))
glibc = statistics.median(map(int, sys.argv[4].split()))
peak = max(map(int, sys.argv[5].split()))
print(f"{sys.argv[1]} {sys.argv[2]}: median {rate:.0f} reports/s, {rate / glibc:.2f} of glibc, peak memory up to {peak} MB")' \
            "$db" "$name" "${rates[$name $db]}" "${rates[glibc $db]}" "${peaks[$name $db]}"
    done
done
