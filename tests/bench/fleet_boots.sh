#!/usr/bin/env bash
# `make bench`, boot records at fleet size (docs/fleet.md "Boots at fleet size"): a generated
# fleet of 10 SKUs whose 100,000 hosts each recorded one boot (1,000,000 records in one JSON
# Lines file, and 20 hosts' sweep reports a SKU) ingested into a throwaway PostgreSQL server
# (records per second, target at least 10,000, and peak resident memory) and into SQLite; then
# one SKU's 100,000 boots tallied by the database (PostgreSQL's aggregates, SQLite's stream)
# beside the same records read through the client (boot-tally), time and peak memory side by
# side, the two tallies compared byte for byte; and that SKU's whole answer (`fleet recommend`,
# computed, target under 1 s and 200 MB). Prints the figures; asserts no time. The fleet comes
# from gen-fleet, the seeded fleet generator (a test program, not a command); without it, or
# without boot-tally, this says so and measures nothing.
#     usage: tests/bench/fleet_boots.sh HUGETUNE SOURCE_DIR GEN_FLEET BOOT_TALLY
source "$(dirname "$0")/../cli/lib/harness.bash"
source "$(dirname "$0")/../cli/lib/fleet.bash"
gen=${3:?usage: fleet_boots.sh HUGETUNE SOURCE_DIR GEN_FLEET BOOT_TALLY}
tally=${4:?usage: fleet_boots.sh HUGETUNE SOURCE_DIR GEN_FLEET BOOT_TALLY}
for tool in "$gen" "$tally"; do
    if [[ ! -x $tool ]]; then
        echo "boots bench: SKIPPED: $tool is not built (it comes with the tests); nothing measured"
        exit 0
    fi
done

hosts=${HUGETUNE_BENCH_BOOT_HOSTS:-100000}
start=$(date +%s.%N)
"$gen" --seed 31 --out "$work/fleet" --skus 10 --hosts-per-sku 20 --fit-once 1 --compact 1 \
    --boot-hosts-per-sku "$hosts" 2>"$work/gen.err" || fail "gen-fleet: $(cat "$work/gen.err")"
mv "$work/fleet/boots.jsonl" "$work/boots.jsonl"
sku=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["skus"][0]["key"])' "$work/fleet/truth.json")
rm "$work/fleet/truth.json"
records=$(wc -l <"$work/boots.jsonl")
echo "generated $records boot records ($(du -m "$work/boots.jsonl" | cut -f1) MB) and $(find "$work/fleet" -name '*.json' | wc -l) reports in $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s"

start_postgres
# measure NAME DB: the records ingested, then the SKU's boots tallied both ways and answered.
measure() {
    local r t
    "$bin" fleet ingest --db "$2" "$work/fleet" >/dev/null 2>"$work/bench.err" || fail "reports: $(cat "$work/bench.err")"
    r=$(timed "$bin" fleet ingest --db "$2" "$work/boots.jsonl")
    t=${r% *}
    echo "$1: ingest of $records boot records: $t s, $(python3 -c "print(round($records / $t))") records/s (target at least 10,000 into PostgreSQL), peak memory $((${r#* } / 1024)) MB"
    local mode
    for mode in database client; do
        r=$(timed "$tally" "$2" "$sku" "$mode")
        echo "$1: one SKU's $hosts boots tallied by the $mode: ${r% *} s, peak memory $((${r#* } / 1024)) MB"
        "$tally" "$2" "$sku" "$mode" >"$work/tally-$mode" 2>/dev/null
    done
    cmp -s "$work/tally-database" "$work/tally-client" &&
        echo "$1: the database's tally and the client's are the same bytes" ||
        echo "$1: THE DATABASE'S TALLY AND THE CLIENT'S DIFFER"
    db_sql "$2" "DELETE FROM sku_answers" >/dev/null
    r=$(timed "$bin" fleet recommend --db "$2" --sku "$sku" --json)
    echo "$1: the SKU's answer with its $hosts boots, computed: ${r% *} s, peak memory $((${r#* } / 1024)) MB (target under 1 s and 200 MB)"
}
measure PostgreSQL "$pg_url"
measure SQLite "$work/boots.db"
rm -f "$work/boots.jsonl"
