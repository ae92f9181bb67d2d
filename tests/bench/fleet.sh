#!/usr/bin/env bash
# `make bench`, the fleet database: 10,000 generated reports ingested into SQLite and into a
# throwaway PostgreSQL server (reports per second), one SKU's answer over 1,000 hosts (target
# under 2 s) computed and then kept, and `fleet skus` over 10,000 runs with every answer
# computed and then with the answers kept (target under 1 s). Prints the figures; asserts
# no time. The reports come from gen-fleet, the seeded fleet generator (a test program, not a
# command); without it this says so and measures nothing.
#     usage: tests/bench/fleet.sh HUGETUNE SOURCE_DIR GEN_FLEET
source "$(dirname "$0")/../cli/lib/harness.bash"
source "$(dirname "$0")/../cli/lib/fleet.bash"
gen=${3:?usage: fleet.sh HUGETUNE SOURCE_DIR GEN_FLEET}
if [[ ! -x $gen ]]; then
    echo "fleet bench: SKIPPED: the fleet generator $gen is not built (it comes with the fleet model's tests); nothing measured"
    exit 0
fi

seconds() {  # seconds COMMAND...: wall seconds of COMMAND, which must succeed
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>"$work/bench.err" || fail "$* failed: $(cat "$work/bench.err")"
    end=$(date +%s.%N)
    python3 -c "print(f'{$end - $start:.2f}')"
}

"$gen" --seed 1 --out "$work/fleet" --skus 10 --hosts-per-sku 1000 >/dev/null
mv "$work/fleet/truth.json" "$work/truth.json"  # the generator's answers, not a report
reports=$(find "$work/fleet" -name '*.json' ! -name truth.json | wc -l)
sku=$(sku_key_of "$(find "$work/fleet" -name '*.json' ! -name truth.json | head -1)")

measure() {  # measure NAME DB
    local t
    t=$(seconds "$bin" fleet ingest --db "$2" "$work/fleet")
    echo "$1: ingest of $reports reports: $t s, $(python3 -c "print(round($reports / $t))") reports/s"
    t=$(seconds "$bin" fleet recommend --db "$2" --sku "$sku")
    echo "$1: one SKU's answer over 1,000 hosts, computed: $t s (target under 2 s)"
    t=$(seconds "$bin" fleet recommend --db "$2" --sku "$sku")
    echo "$1: the same answer again, kept: $t s"
    db_sql "$2" "DELETE FROM sku_answers" >/dev/null
    t=$(seconds "$bin" fleet skus --db "$2")
    echo "$1: fleet skus over $(run_count "$2") runs, every SKU computed: $t s"
    t=$(seconds "$bin" fleet skus --db "$2")
    echo "$1: fleet skus over $(run_count "$2") runs, answers kept: $t s (target under 1 s)"
}

measure SQLite "$work/fleet.db"
start_postgres
measure PostgreSQL "$pg_url"
