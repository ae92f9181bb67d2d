#!/usr/bin/env bash
# `make bench`, the fleet database: 10,000 generated reports ingested into SQLite and into a
# throwaway PostgreSQL server (seconds, reports per second and peak resident memory, target
# under 300 MB), one report of about 59 MB ingested alone (its peak memory), one SKU's answer
# over 1,000 hosts computed (target under 0.5 s) from the runs' digests and, side by side, from
# the reports themselves (the digests deleted in a copy: the path before digests), then kept,
# and `fleet skus` over 10,000 runs with every answer computed and then with the answers kept
# (target under 1 s). Then, on SQLite, fleets of 100,000 generated reports: one SKU of 100,000
# hosts (its answer, target under 10 s and 500 MB) and ten SKUs of 10,000 hosts (`fleet skus`
# with every answer computed, target under 60 s, beside the reports' path). Prints the figures;
# asserts no time. HUGETUNE_BENCH_LARGE=0 leaves the 100,000-report fleets out, =only measures
# only them. The reports come from gen-fleet, the seeded fleet generator (a test program, not a
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

if [[ ${HUGETUNE_BENCH_LARGE:-1} != only ]]; then
"$gen" --seed 1 --out "$work/fleet" --skus 10 --hosts-per-sku 1000 >/dev/null
mv "$work/fleet/truth.json" "$work/truth.json"  # the generator's answers, not a report
reports=$(find "$work/fleet" -name '*.json' ! -name truth.json | wc -l)
sku=$(sku_key_of "$(find "$work/fleet" -name '*.json' ! -name truth.json | head -1)")

# A report of about 59 MB (64 MiB is the most a report may be): a generated one whose sweep
# points repeat their samples, near the million samples a report may hold, indented wide.
# It goes into a database of its own, so the SKU figures below stay those of 1,000 hosts.
make_large_report "$(find "$work/fleet" -name '*.json' | sort | head -1)" "$work/large.json" 950000 8
large_mb=$(python3 -c "print(round($(stat -c %s "$work/large.json") / 1e6))")

measure() {  # measure NAME DB DB_FOR_THE_LARGE_REPORT
    local t r
    r=$(timed "$bin" fleet ingest --db "$2" "$work/fleet")
    t=${r% *}
    echo "$1: ingest of $reports reports: $t s, $(python3 -c "print(round($reports / $t))") reports/s (target at least 2,000), peak memory $((${r#* } / 1024)) MB (target under 300 MB)"
    r=$(timed "$bin" fleet ingest --db "$3" "$work/large.json")
    echo "$1: ingest of one $large_mb MB report: ${r% *} s, peak memory $((${r#* } / 1024)) MB"
    db_sql "$2" "DELETE FROM sku_answers" >/dev/null
    r=$(timed "$bin" fleet recommend --db "$2" --sku "$sku")
    echo "$1: one SKU's answer over 1,000 hosts, computed from digests: ${r% *} s, peak memory $((${r#* } / 1024)) MB (target under 0.5 s)"
    t=$(seconds "$bin" fleet recommend --db "$2" --sku "$sku")
    echo "$1: the same answer again, kept: $t s"
    db_sql "$2" "DELETE FROM sku_answers" >/dev/null
    t=$(seconds "$bin" fleet skus --db "$2")
    echo "$1: fleet skus over $(run_count "$2") runs, every SKU computed: $t s"
    t=$(seconds "$bin" fleet skus --db "$2")
    echo "$1: fleet skus over $(run_count "$2") runs, answers kept: $t s (target under 1 s)"
}

measure SQLite "$work/fleet.db" "$work/large.db"
start_postgres
psql -X -q "$pg_url" -c "CREATE DATABASE large" >/dev/null
measure PostgreSQL "$pg_url" "${pg_url/\/postgres?//large?}"

# The same SKU from the reports themselves, the path before digests: a copy without them.
cp "$work/fleet.db" "$work/reports.db"
db_sql "$work/reports.db" "DELETE FROM run_digests" >/dev/null
for db in fleet reports; do
    db_sql "$work/$db.db" "DELETE FROM sku_answers" >/dev/null
    r=$(timed "$bin" fleet recommend --db "$work/$db.db" --sku "$sku" --json)
    echo "SQLite: one SKU's answer over 1,000 hosts from $db: ${r% *} s, peak memory $((${r#* } / 1024)) MB"
    "$bin" fleet recommend --db "$work/$db.db" --sku "$sku" --json >"$work/$db.answer.json"
done
cmp -s "$work/fleet.answer.json" "$work/reports.answer.json" &&
    echo "SQLite: the answers from digests and from reports are the same bytes" ||
    echo "SQLite: THE ANSWERS FROM DIGESTS AND FROM REPORTS DIFFER"
rm -f "$work/reports.db" "$work/large.json"
fi

[[ ${HUGETUNE_BENCH_LARGE:-1} == 0 ]] && exit 0

# large NAME SEED SKUS HOSTS: a generated fleet ingested into $work/NAME.db, the files removed.
large() {
    local t r n
    t=$(seconds "$gen" --seed "$2" --out "$work/$1" --skus "$3" --hosts-per-sku "$4" --fit-once 1 --compact 1)
    rm "$work/$1/truth.json"
    n=$(find "$work/$1" -name '*.json' | wc -l)
    echo "$1: generated $n reports in $t s ($(du -sm "$work/$1" | cut -f1) MB)"
    r=$(timed "$bin" fleet ingest --db "$work/$1.db" "$work/$1")
    echo "$1: ingest into SQLite: ${r% *} s, $(python3 -c "print(round($n / ${r% *}))") reports/s, peak memory $((${r#* } / 1024)) MB"
    large_sku=$(sku_key_of "$(find "$work/$1" -name '*.json' | head -1)")
    rm -r "${work:?}/$1"
}

large one-sku 11 1 100000
r=$(timed "$bin" fleet recommend --db "$work/one-sku.db" --sku "$large_sku")
echo "one-sku: the answer over 100,000 hosts, computed from digests: ${r% *} s, peak memory $((${r#* } / 1024)) MB (target under 10 s and 500 MB; from reports not run: about 150 MB a 1,000 hosts)"
rm "$work/one-sku.db"

large ten-skus 12 10 10000
r=$(timed "$bin" fleet skus --db "$work/ten-skus.db")
echo "ten-skus: fleet skus over 100,000 runs in 10 SKUs, every SKU computed from digests: ${r% *} s, peak memory $((${r#* } / 1024)) MB (target under 60 s)"
db_sql "$work/ten-skus.db" "DELETE FROM run_digests" >/dev/null
db_sql "$work/ten-skus.db" "DELETE FROM sku_answers" >/dev/null
r=$(timed "$bin" fleet skus --db "$work/ten-skus.db")
echo "ten-skus: the same from reports: ${r% *} s, peak memory $((${r#* } / 1024)) MB"
