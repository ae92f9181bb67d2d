#!/usr/bin/env bash
# usage: tests/bench/fleet_answer_times.sh HUGETUNE GEN_FLEET (a measurement: prints, asserts nothing)
# One SKU's answer over 1,000 hosts, computed (no kept answer), three runs for each of three SKUs
# of different microarchitectures in the bench's ten-SKU fleet, on SQLite.
set -eu
bin=$1 gen=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$gen" --seed 1 --out "$work/fleet" --skus 10 --hosts-per-sku 1000 >/dev/null
rm "$work/fleet/truth.json"
"$bin" fleet ingest --db "$work/fleet.db" "$work/fleet" >/dev/null
"$bin" fleet skus --db "$work/fleet.db" --json | python3 -c '
import json, sys
seen = set()
for s in json.load(sys.stdin):
    family = s["sku"].split("/")[0].split("-")[0]
    if family not in seen and len(seen) < 3:
        seen.add(family)
        print(s["sku"])' >"$work/skus"
while read -r sku; do
    times=()
    for run in 1 2 3; do
        sqlite3 "$work/fleet.db" "DELETE FROM sku_answers" 2>/dev/null ||
            python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('DELETE FROM sku_answers'); c.commit()" "$work/fleet.db"
        start=$(date +%s.%N)
        "$bin" fleet recommend --db "$work/fleet.db" --sku "$sku" >/dev/null
        end=$(date +%s.%N)
        times+=("$(python3 -c "print(f'{$end - $start:.2f}')")")
    done
    echo "$sku: ${times[*]} s"
done <"$work/skus"
