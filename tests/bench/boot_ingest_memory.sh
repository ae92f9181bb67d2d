#!/usr/bin/env bash
# Two hugetune binaries' `fleet ingest` of JSON Lines files of boot records side by side: each
# file into a new SQLite file and a new database of one throwaway PostgreSQL server (a unix
# socket in the scratch directory, stopped by its PID), with A and then B, and the seconds,
# records per second and peak resident memory of each. Used to measure what bounds an ingest's
# memory (the issue's target: under 100 MB for 1,000,000 and 2,000,000 records on both
# databases) against the binary before a change. Asserts no time.
#     usage: tests/bench/boot_ingest_memory.sh HUGETUNE_A HUGETUNE_B SOURCE_DIR JSONL...
# JSONL: files of boot records, one a line (gen-fleet --boot-hosts-per-sku writes boots.jsonl).
usage="usage: boot_ingest_memory.sh HUGETUNE_A HUGETUNE_B SOURCE_DIR JSONL..."
a=${1:?$usage}
b=${2:?$usage}
source "$(dirname "$0")/../cli/lib/harness.bash" "$a" "${3:?$usage}"
source "$(dirname "$0")/../cli/lib/fleet.bash"
shift 3
(($# > 0)) || fail "$usage"
echo "A: $a ($(sha256sum "$a" | cut -c1-12))"
echo "B: $b ($(sha256sum "$b" | cut -c1-12))"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start_postgres
i=0
for file in "$@"; do
    n=$(wc -l <"$file")
    echo "file: $file, $n records, $(du -m "$file" | cut -f1) MB"
    for side in A B; do
        [[ $side == A ]] && exe=$a || exe=$b
        i=$((i + 1))
        r=$(timed "$exe" fleet ingest --db "$work/bi$i.db" "$file")
        echo "$side SQLite: ${r% *} s, $(python3 -S -c "print(round($n / ${r% *}))") records/s, peak memory $((${r#* } / 1024)) MB"
        rm -f "$work/bi$i.db"
        psql -X -q "$pg_url" -c "CREATE DATABASE bi$i" >/dev/null
        r=$(timed "$exe" fleet ingest --db "${pg_url/\/postgres?//bi$i?}" "$file")
        echo "$side PostgreSQL: ${r% *} s, $(python3 -S -c "print(round($n / ${r% *}))") records/s, peak memory $((${r#* } / 1024)) MB"
        psql -X -q "$pg_url" -c "DROP DATABASE bi$i" >/dev/null
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
