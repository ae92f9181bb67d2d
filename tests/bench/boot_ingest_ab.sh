#!/usr/bin/env bash
# `fleet ingest` of boot records, two builds side by side: each round removes every boot record
# from OLD_DB and NEW_DB, then ingests the JSON Lines file BOOTS into OLD_DB with OLD and into
# NEW_DB with NEW, in turns, ROUNDS times, and prints each ingest's seconds and records per
# second; then each side's median and NEW's over OLD's. OLD_DB and NEW_DB hold the same reports
# (a SQLite file or a postgresql:// URL each, both of one backend), each at its build's schema.
# Asserts nothing but that every ingest ran.
#     usage: tests/bench/boot_ingest_ab.sh OLD_HUGETUNE NEW_HUGETUNE BOOTS ROUNDS OLD_DB NEW_DB
set -euo pipefail
usage="usage: boot_ingest_ab.sh OLD_HUGETUNE NEW_HUGETUNE BOOTS ROUNDS OLD_DB NEW_DB"
old=${1:?$usage} new=${2:?$usage} boots=${3:?$usage} rounds=${4:?$usage}
old_db=${5:?$usage} new_db=${6:?$usage}
records=$(grep -c . "$boots")
sql() {
    if [[ $1 == postgresql://* ]]; then
        psql -X -q -t -A -v ON_ERROR_STOP=1 "$1" -c "$2"
    else
        python3 -S -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()' "$1" "$2"
    fi
}
echo "$records records; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A rates
for ((i = 1; i <= rounds; i++)); do
    for side in old new; do
        db_of=${side}_db
        sql "${!db_of}" "DELETE FROM boot_records"
        [[ ${!db_of} == postgresql://* ]] && sql "${!db_of}" "VACUUM ANALYZE boot_records"
        start=$(date +%s.%N)
        "${!side}" fleet ingest --db "${!db_of}" "$boots" >/dev/null
        end=$(date +%s.%N)
        rate=$(python3 -S -c "print(round($records / ($end - $start)))")
        rates[$side]+="$rate "
        echo "$side round $i: $(python3 -S -c "print(f'{$end - $start:.2f}')") s, $rate records/s"
    done
done
python3 -S - "${rates[old]}" "${rates[new]}" <<'PY'
import sys
old, new = (sorted(int(v) for v in side.split()) for side in sys.argv[1:])
median = lambda v: v[len(v) // 2]
print(f"median: old {median(old)} records/s, new {median(new)} records/s, new/old {median(new) / median(old):.2f}")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
