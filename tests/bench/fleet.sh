#!/usr/bin/env bash
# `make bench`, the fleet database: 10,000 generated reports ingested into SQLite and into a
# throwaway PostgreSQL server (seconds, reports per second and peak resident memory, target
# under 300 MB), one report of about 59 MB ingested alone (its peak memory), one SKU's answer
# over 1,000 hosts (target under 2 s) computed and then kept, and `fleet skus` over 10,000 runs
# with every answer computed and then with the answers kept (target under 1 s). Prints the
# figures; asserts no time. The reports come from gen-fleet, the seeded fleet generator (a test program, not a
# command); without it this says so and measures nothing.
#     usage: tests/bench/fleet.sh HUGETUNE SOURCE_DIR GEN_FLEET
source "$(dirname "$0")/../cli/lib/harness.bash"
source "$(dirname "$0")/../cli/lib/fleet.bash"
gen=${3:?usage: fleet.sh HUGETUNE SOURCE_DIR GEN_FLEET}
if [[ ! -x $gen ]]; then
    echo "fleet bench: SKIPPED: the fleet generator $gen is not built (it comes with the fleet model's tests); nothing measured"
    exit 0
fi

# timed COMMAND...: "SECONDS PEAK_KB" of COMMAND, which must succeed: wall time and the peak
# resident memory the kernel counted for it (getrusage of the child).
timed() {
    python3 - "$work/bench.err" "$@" <<'PY' || fail "$* failed: $(cat "$work/bench.err")"
import resource, subprocess, sys, time
start = time.monotonic()
with open(sys.argv[1], "w") as err:
    rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err).returncode
seconds = time.monotonic() - start
print(f"{seconds:.2f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
sys.exit(rc)
PY
}

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

measure SQLite "$work/fleet.db" "$work/large.db"
start_postgres
psql -X -q "$pg_url" -c "CREATE DATABASE large" >/dev/null
measure PostgreSQL "$pg_url" "${pg_url/\/postgres?//large?}"
