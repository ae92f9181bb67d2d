#!/usr/bin/env bash
# Two hugetune binaries' answer for one SKU side by side: each computes `fleet recommend --sku`
# with no kept answer, on its own copy of one SQLite fleet database (a binary of a newer schema
# migrates its copy first, untimed), in turns, and the seconds and peak resident memory of each
# are printed; then each side's median and whether the two answers (`--json`) are the same
# bytes. Used to measure a change to the answer's path against the commit before it, on a
# machine whose load shifts: the two ran in turns, so both saw the same load. Asserts no time.
#     usage: tests/bench/fleet_answer_ab.sh HUGETUNE_A HUGETUNE_B SOURCE_DIR DB SKU [ROUNDS]
# DB: a SQLite fleet database of A's schema or older (tests/bench/fleet.sh makes one SKU of
# 100,000 hosts: gen-fleet --seed 11 --skus 1 --hosts-per-sku 100000 --fit-once 1 --compact 1,
# then fleet ingest), or a folder of reports: then both answer from PostgreSQL, a throwaway
# server this script starts and stops, the folder ingested by A into one database that B's is
# a copy of (CREATE DATABASE ... TEMPLATE); or a postgresql:// URL of a database already
# ingested (and analyzed): then each side answers from its own copy of it (TEMPLATE), dropped
# when the script ends, so rounds are not timed against a server still settling an ingest.
# ROUNDS: 3 unless given.
usage="usage: fleet_answer_ab.sh HUGETUNE_A HUGETUNE_B SOURCE_DIR DB SKU [ROUNDS]"
a=${1:?$usage}
b=${2:?$usage}
source "$(dirname "$0")/../cli/lib/harness.bash" "$a" "${3:?$usage}"
source "$(dirname "$0")/../cli/lib/fleet.bash"
db=${4:?$usage}
sku=${5:?$usage}
rounds=${6:-3}
echo "A: $a ($(sha256sum "$a" | cut -c1-12))"
echo "B: $b ($(sha256sum "$b" | cut -c1-12))"
declare -A target
if [[ $db == postgresql:* ]]; then
    # The server's own maintenance database beside the one given, for CREATE and DROP.
    admin=$(sed -E 's|^(postgresql://[^/]*/)[^?]*|\1postgres|' <<<"$db")
    source_db=$(sed -E 's|^postgresql://[^/]*/([^?]*).*|\1|' <<<"$db")
    for side in a b; do
        target[${side^^}]=$(sed -E "s|^(postgresql://[^/]*/)[^?]*|\\1ab_side_$side|" <<<"$db")
        psql -X -q "$admin" -c "DROP DATABASE IF EXISTS ab_side_$side" >/dev/null 2>&1
        psql -X -q "$admin" -c "CREATE DATABASE ab_side_$side TEMPLATE $source_db" >/dev/null ||
            fail "could not copy $source_db (is another session connected to it?)"
        at_exit "psql -X -q '$admin' -c 'DROP DATABASE IF EXISTS ab_side_$side' >/dev/null 2>&1"
    done
    echo "SKU: $sku in copies of $source_db on PostgreSQL $(psql -X -t -A "$admin" -c 'SHOW server_version'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
elif [[ -d $db ]]; then
    start_postgres
    for side in a b; do target[${side^^}]=${pg_url/\/postgres\?//side_$side?}; done
    psql -X -q "$pg_url" -c "CREATE DATABASE side_a" >/dev/null
    r=$(timed "$a" fleet ingest --db "${target[A]}" "$db")
    psql -X -q "$pg_url" -c "CREATE DATABASE side_b TEMPLATE side_a" >/dev/null
    echo "SKU: $sku in PostgreSQL $(psql -X -t -A "$pg_url" -c 'SHOW server_version'), ingested by A from $db in ${r% *} s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
else
    echo "SKU: $sku in $db ($(du -m "$db" | cut -f1) MB); load average $(cut -d' ' -f1-3 /proc/loadavg)"
    for side in A B; do
        target[$side]=$work/$side.db
        cp "$db" "${target[$side]}"
    done
fi
for side in A B; do
    [[ $side == A ]] && exe=$a || exe=$b
    # Any command opens (and migrates) it; this one reads nothing, and says the host has no runs.
    "$exe" fleet runs --db "${target[$side]}" --host nobody.invalid >/dev/null 2>&1 || true
done
clear_kept() { db_sql "$1" "DELETE FROM sku_answers" >/dev/null; }
declare -A times
for ((round = 1; round <= rounds; round++)); do
    for side in A B; do
        [[ $side == A ]] && exe=$a || exe=$b
        clear_kept "${target[$side]}"
        r=$(timed "$exe" fleet recommend --db "${target[$side]}" --sku "$sku")
        times[$side]+="${r% *} "
        echo "round $round $side: ${r% *} s, peak memory $((${r#* } / 1024)) MB"
    done
done
for side in A B; do
    [[ $side == A ]] && exe=$a || exe=$b
    clear_kept "${target[$side]}"
    "$exe" fleet recommend --db "${target[$side]}" --sku "$sku" --json >"$work/$side.json" ||
        fail "$side's answer failed"
done
python3 -S -c 'import statistics, sys
a = statistics.median(map(float, sys.argv[1].split()))
b = statistics.median(map(float, sys.argv[2].split()))
print(f"median A {a:.2f} s, B {b:.2f} s, B/A {b / a:.2f}")' "${times[A]}" "${times[B]}"
if cmp -s "$work/A.json" "$work/B.json"; then
    echo "fleet recommend --json: the same bytes ($(stat -c %s "$work/B.json") bytes)"
else
    echo "fleet recommend --json: the answers differ"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
