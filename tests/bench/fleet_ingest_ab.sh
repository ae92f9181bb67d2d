#!/usr/bin/env bash
# Two hugetune binaries' `fleet ingest` side by side on one set of reports: each round ingests
# the reports with A, then with B, into a new SQLite file and a new database of one throwaway
# PostgreSQL server (on a unix socket in the scratch directory, stopped by its PID), and prints
# the seconds, reports per second and peak resident memory of each; then each side's median
# rate and B's over A's. Used to measure a change to the ingest against the commit before it,
# on a machine whose load shifts: the two ran in turns, so both saw the same load. Asserts no
# time.
#     usage: tests/bench/fleet_ingest_ab.sh HUGETUNE_A HUGETUNE_B SOURCE_DIR REPORTS_DIR [ROUNDS]
# REPORTS_DIR: reports as `fleet ingest` reads a directory (gen-fleet's, its truth.json moved
# out). ROUNDS: 3 unless given.
a=${1:?usage: fleet_ingest_ab.sh HUGETUNE_A HUGETUNE_B SOURCE_DIR REPORTS_DIR [ROUNDS]}
b=${2:?usage: fleet_ingest_ab.sh HUGETUNE_A HUGETUNE_B SOURCE_DIR REPORTS_DIR [ROUNDS]}
source "$(dirname "$0")/../cli/lib/harness.bash" "$a" "$3"
source "$(dirname "$0")/../cli/lib/fleet.bash"
reports_dir=${4:?usage: fleet_ingest_ab.sh HUGETUNE_A HUGETUNE_B SOURCE_DIR REPORTS_DIR [ROUNDS]}
rounds=${5:-3}
n=$(find "$reports_dir" -name '*.json' | wc -l)
echo "A: $a ($(sha256sum "$a" | cut -c1-12))"
echo "B: $b ($(sha256sum "$b" | cut -c1-12))"
echo "reports: $n in $reports_dir"
start_postgres
declare -A rates
i=0
for ((round = 1; round <= rounds; round++)); do
    for side in A B; do
        [[ $side == A ]] && exe=$a || exe=$b
        i=$((i + 1))
        r=$(timed "$exe" fleet ingest --db "$work/ab$i.db" "$reports_dir")
        rate=$(python3 -S -c "print(round($n / ${r% *}))")
        rates[$side SQLite]+="$rate "
        echo "round $round $side SQLite: ${r% *} s, $rate reports/s, peak memory $((${r#* } / 1024)) MB"
        rm -f "$work/ab$i.db"
        psql -X -q "$pg_url" -c "CREATE DATABASE ab$i" >/dev/null
        r=$(timed "$exe" fleet ingest --db "${pg_url/\/postgres?//ab$i?}" "$reports_dir")
        rate=$(python3 -S -c "print(round($n / ${r% *}))")
        rates[$side PostgreSQL]+="$rate "
        echo "round $round $side PostgreSQL: ${r% *} s, $rate reports/s, peak memory $((${r#* } / 1024)) MB"
        psql -X -q "$pg_url" -c "DROP DATABASE ab$i" >/dev/null
    done
done
for db in SQLite PostgreSQL; do
    python3 -S -c 'import statistics, sys
a = statistics.median(map(int, sys.argv[2].split()))
b = statistics.median(map(int, sys.argv[3].split()))
print(f"{sys.argv[1]}: median A {a:.0f} reports/s, B {b:.0f} reports/s, B/A {b / a:.2f}")' \
        "$db" "${rates[A $db]}" "${rates[B $db]}"
done
