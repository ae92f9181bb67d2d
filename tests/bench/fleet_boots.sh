#!/usr/bin/env bash
# `make bench`, boot records at fleet size (docs/fleet.md "Boots at fleet size"): a generated
# SKU of 100,000 reporting hosts, each of which recorded one boot (a boot counts only for a host
# a report of the SKU names), ingested into a throwaway PostgreSQL server and into SQLite. Per
# database, each figure taken HUGETUNE_BENCH_ROUNDS times (3), each round printed and then the
# median with the lowest and highest: the SKU's answer without its boots; the 100,000 records
# ingested (records per second, target at least 10,000 into PostgreSQL, and peak resident
# memory, target under 100 MB), removed again between rounds; the SKU's boots tallied by the
# database (PostgreSQL's aggregates, SQLite's stream; target under 0.5 s, the tally alone) beside
# the same records read through the client (boot-tally), time and peak memory side by side, the
# two tallies compared byte for byte; and the SKU's whole answer with its boots (`fleet
# recommend`, computed; targets under 10 s and 500 MB, its medians printed as shares of them).
# What the boots add to the answer is the difference of the two answers. Prints the figures;
# asserts no time.
# The fleet comes from gen-fleet, the seeded fleet generator (a test program, not a command);
# without it, or without boot-tally, this says so and measures nothing.
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
rounds=${HUGETUNE_BENCH_ROUNDS:-3}
start=$(date +%s.%N)
"$gen" --seed 31 --out "$work/fleet" --skus 1 --hosts-per-sku "$hosts" --fit-once 1 --compact 1 \
    --boot-hosts-per-sku "$hosts" 2>"$work/gen.err" || fail "gen-fleet: $(cat "$work/gen.err")"
mv "$work/fleet/boots.jsonl" "$work/boots.jsonl"
sku=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["skus"][0]["key"])' "$work/fleet/truth.json")
rm "$work/fleet/truth.json"
records=$(wc -l <"$work/boots.jsonl")
echo "generated $records boot records ($(du -m "$work/boots.jsonl" | cut -f1) MB) and $(find "$work/fleet" -name '*.json' | wc -l) reports in $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

start_postgres

# spread LABEL "SECONDS PEAK_KB"...: the median of the rounds' seconds and memory, with the
# lowest and highest.
spread() {
    python3 -S - "$@" <<'PY'
import sys
label, rounds = sys.argv[1], [r.split() for r in sys.argv[2:]]
def stat(values, unit):
    values = sorted(values)
    return f"median {values[len(values) // 2]:g}{unit} ({values[0]:g} to {values[-1]:g})"
print(f"{label}: {stat([float(r[0]) for r in rounds], ' s')}, peak memory "
      f"{stat([int(r[1]) // 1024 for r in rounds], ' MB')}")
PY
}

# rounds LABEL COMMAND...: COMMAND timed $rounds times, each printed, then their spread; before
# each, `before_round` (a function the caller sets) runs.
rounds() {
    local label=$1 i r all=()
    shift
    for ((i = 1; i <= rounds; i++)); do
        before_round
        r=$(timed "$@")
        all+=("$r")
        echo "$label, round $i: ${r% *} s, peak memory $((${r#* } / 1024)) MB"
    done
    spread "$label" "${all[@]}"
    last_rounds=("${all[@]}")
}

# against_targets LABEL SECONDS MB "SECONDS PEAK_KB"...: the medians of the rounds as shares of
# the targets.
against_targets() {
    python3 -S - "$@" <<'PY'
import sys
label, seconds, mb, rounds = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), [r.split() for r in sys.argv[4:]]
def middle(values):
    return sorted(values)[len(values) // 2]
s, m = middle([float(r[0]) for r in rounds]), middle([int(r[1]) // 1024 for r in rounds])
print(f"{label} against its targets of {seconds:g} s and {mb} MB: {s / seconds:.2f} and {m / mb:.2f} of them (medians)")
PY
}

# measure NAME DB: the reports ingested, then the answer without boots, the records ingested, the
# SKU's boots tallied both ways and the answer with them.
measure() {
    local name=$1 db=$2 r mode
    r=$(timed "$bin" fleet ingest --db "$db" "$work/fleet")
    echo "$name: ingest of $hosts reports: ${r% *} s, peak memory $((${r#* } / 1024)) MB"
    before_round() { db_sql "$db" "DELETE FROM sku_answers" >/dev/null; }
    rounds "$name: the SKU's answer over $hosts hosts without boots, computed" \
        "$bin" fleet recommend --db "$db" --sku "$sku" --json
    local ingested=0
    before_round() {
        ((ingested++ == 0)) || db_sql "$db" "DELETE FROM boot_records" >/dev/null
    }
    rounds "$name: ingest of $records boot records (targets: at least 10,000 records/s into PostgreSQL, peak memory under 100 MB)" \
        "$bin" fleet ingest --db "$db" "$work/boots.jsonl"
    # The rounds deleted the boots and stored them again: PostgreSQL's indexes keep the pages of
    # the dead entries beside the live ones (the tally's index several times one ingest's size),
    # which a fleet that only adds boots never sees, and the planner then reads the whole table
    # instead of the index (docs/measurements/fleet-boots-bench-2026-12-07-reported.txt). The
    # table as one ingest leaves it: rewritten (VACUUM FULL), then its pages marked visible, as
    # the ingest's own VACUUM marks them (VACUUM FULL does not).
    if [[ $db == postgresql://* ]]; then
        db_sql "$db" "VACUUM FULL boot_records" >/dev/null
        db_sql "$db" "VACUUM (ANALYZE) boot_records" >/dev/null
    fi
    before_round() { :; }
    for mode in database client; do
        rounds "$name: the SKU's $records boots of $hosts reporting hosts tallied by the $mode" \
            "$tally" "$db" "$sku" "$mode"
        "$tally" "$db" "$sku" "$mode" >"$work/tally-$mode" 2>"$work/tally.err" ||
            fail "boot-tally: $(cat "$work/tally.err")"
        echo "$name: $(cat "$work/tally.err") (the tally alone, the SKU's host names read before)"
        if [[ $mode == database ]]; then
            python3 -S -c 'import re, sys
s = float(re.search(r" in ([\d.]+) s", sys.argv[2]).group(1))
print(f"{sys.argv[1]}: the database'"'"'s tally against its target of 0.5 s: {s / 0.5:.2f} of it")' \
                "$name" "$(cat "$work/tally.err")"
        fi
    done
    echo "$name: the tally holds $(grep -c '^host ' "$work/tally-database") host medians"
    cmp -s "$work/tally-database" "$work/tally-client" &&
        echo "$name: the database's tally and the client's are the same bytes" ||
        echo "$name: THE DATABASE'S TALLY AND THE CLIENT'S DIFFER"
    before_round() { db_sql "$db" "DELETE FROM sku_answers" >/dev/null; }
    rounds "$name: the SKU's answer over $hosts hosts with their $records boots, computed" \
        "$bin" fleet recommend --db "$db" --sku "$sku" --json
    against_targets "$name: the answer with its boots" 10 500 "${last_rounds[@]}"
    "$bin" fleet recommend --db "$db" --sku "$sku" --json >"$work/answer.json" ||
        fail "recommend: the answer with boots failed"
    echo "$name: the answer's boots: $(json_field "$work/answer.json" \
        'd["boots"]["hosts"], d["boots"]["boots"], d["boots"]["refused_boots"], d["boots"]["decided"], d["status"]') (hosts, boots, refused, decided, status)"
    echo "$name: refused: $(json_field "$work/answer.json" \
        '[(f["threads"], f["why"], f["hosts"], f["boots"]) for f in d["boots"]["refused"]]') (value, why, hosts, boots)"
    echo "$name: load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}
measure PostgreSQL "$pg_url"
measure SQLite "$work/boots.db"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$work/boots.jsonl"
