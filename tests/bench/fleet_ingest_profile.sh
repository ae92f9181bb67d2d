#!/usr/bin/env bash
# Where a `fleet ingest` into PostgreSQL spends the machine's CPUs: one ingest of a set of
# reports into a throwaway server (on a unix socket in the scratch directory, stopped by its
# PID), sampled system-wide by `perf record -a`, then the share of the samples per program
# (hugetune, the server, idle as `swapper`) and the functions above 0.5 % in each. The client
# and the server share the machine's CPUs here, as they do on the development machine; the
# shares say which side a change to the ingest should cut. Asserts nothing.
#     usage: tests/bench/fleet_ingest_profile.sh HUGETUNE SOURCE_DIR REPORTS_DIR
# REPORTS_DIR: reports as `fleet ingest` reads a directory (gen-fleet's, its truth.json moved
# out). Skips (77) without perf (Debian package linux-perf) or where perf may not sample.
exe=${1:?usage: fleet_ingest_profile.sh HUGETUNE SOURCE_DIR REPORTS_DIR}
source "$(dirname "$0")/../cli/lib/harness.bash" "$exe" "$2"
source "$(dirname "$0")/../cli/lib/fleet.bash"
reports_dir=${3:?usage: fleet_ingest_profile.sh HUGETUNE SOURCE_DIR REPORTS_DIR}
command -v perf >/dev/null || skip "perf is not installed (Debian package linux-perf)"
perf record -a -o "$work/probe.data" -- true >/dev/null 2>&1 ||
    skip "perf cannot sample the whole machine here (perf_event_paranoid, or not root)"
n=$(find "$reports_dir" -name '*.json' | wc -l)
echo "hugetune: $exe ($(sha256sum "$exe" | cut -c1-12))"
echo "reports: $n in $reports_dir"
start_postgres
psql -X -q "$pg_url" -c "CREATE DATABASE profiled" >/dev/null
start=$(date +%s.%N)
perf record -a -F 999 -o "$work/perf.data" -- "$exe" fleet ingest \
    --db "${pg_url/\/postgres?//profiled?}" "$reports_dir" >"$work/ingest.out" 2>"$work/perf.err" ||
    fail "the ingest failed: $(tail -3 "$work/perf.err")"
end=$(date +%s.%N)
cat "$work/ingest.out"
python3 -S -c "import sys; s = float(sys.argv[2]) - float(sys.argv[1]); print(f'{s:.2f} s, {int(sys.argv[3]) / s:.0f} reports/s (under perf)')" \
    "$start" "$end" "$n"
echo "== samples per program"
perf report -i "$work/perf.data" --no-children --sort comm --stdio -g none 2>/dev/null |
    grep '%' | grep -v '^#' | head -8
for comm in "$(basename "$exe")" postgres; do
    echo "== functions of $comm above 0.5 % of all samples"
    perf report -i "$work/perf.data" --no-children --comms "$comm" --sort dso,sym --stdio \
        -g none --percent-limit 0.5 2>/dev/null | grep '%' | grep -v '^#' | cut -c1-150 | head -30
done
