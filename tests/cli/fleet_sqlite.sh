#!/usr/bin/env bash
# The fleet database suite (tests/cli/lib/fleet.bash) on an embedded SQLite file; HUGETUNE_DB
# names it where --db is not given.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/fleet.bash"
source "$(dirname "$0")/lib/hostile_boots.bash"
require_command python3 "the suite edits reports and reads the database with it"
require_command readelf "it reads the binary's build ID (Debian: binutils)"
fleet_suite "$work/fleet.db"
# The SKU of one host: a small answer (the other SKU gained 200 hosts since it was kept).
HUGETUNE_DB=$work/fleet.db expect 0 "$bin" fleet recommend --host other-1 --json
[[ $(json_field "$out" 'd["sku"].split("/")[0], d["hosts"]') == "('intel-6-1001-0', 1)" ]] ||
    fail "HUGETUNE_DB not used: $(cat "$out")"
# Counted in words: one host, one run, no verified boot.
HUGETUNE_DB=$work/fleet.db expect 0 "$bin" fleet recommend --host other-1
stdout_matches "^sku        intel-6-1001-0/[^ ]+ \(1 host, 1 run\)$"
stdout_has "verified   0 boots"
stdout_has "1 host in the fit"

# An ingest holding SQLite's write lock: a reader computes the answer without waiting for the
# lock to keep it (the lock is held here by python, stopped by its PID however this ends). On a
# database of its own with one small SKU: the answer is computed anew.
make_report "$fleet_fixture" "$work/lock-1.json" lock-1
expect 0 "$bin" fleet ingest --db "$work/lock.db" "$work/lock-1.json"
expect 0 "$bin" fleet skus --db "$work/lock.db"
db_sql "$work/lock.db" "UPDATE sku_answers SET inputs = 'stale'" >/dev/null
python3 -S -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
time.sleep(120)' "$work/lock.db" "$work/locked" &
locker=$!
at_exit 'kill "$locker" 2>/dev/null'
for _ in $(seq 100); do [[ -e $work/locked ]] && break; sleep 0.1; done
[[ -e $work/locked ]] || fail "python did not take the write lock"
started=$SECONDS
expect 0 "$bin" fleet skus --db "$work/lock.db" --json
((SECONDS - started < 30)) || fail "fleet skus waited $((SECONDS - started)) s for the write lock"
[[ $(json_field "$out" 'len(d)') == 1 ]] || fail "skus under the lock: $(cat "$out")"
kill "$locker"
wait "$locker" 2>/dev/null || true
[[ $(db_sql "$work/lock.db" "SELECT inputs FROM sku_answers") == stale ]] ||
    fail "an answer was kept through another writer's lock"
host_names_suite "$work/fleet.db"
boots_suite "$work/boots.db"
boot_lines_suite "$work/boot-lines.db"
hostile_boots_suite "$work/hostile.db"
stale_suite "$work/stale.db"
hardware_identity_suite "$work/hwid.db"
echo "fleet on SQLite: all passed"
