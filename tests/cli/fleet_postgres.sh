#!/usr/bin/env bash
# The fleet database suite (tests/cli/lib/fleet.bash) on a real PostgreSQL server: Debian's
# postgresql package, initdb into the scratch directory as `nobody`, a unix socket there only,
# stopped by its PID when the script ends, also on failure. When it cannot start: a skip that
# says why, never a pass.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/fleet.bash"
require_command python3 "the suite edits reports with it"
start_postgres
fleet_suite "$pg_url"

# Migration 8: the large texts compressed with lz4 where the server has it, pglz (the column's
# default, '') where it does not; a server without lz4 is no reason to refuse the database.
lz4=$(db_sql "$pg_url" "SELECT COUNT(*) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)")
compression=$(db_sql "$pg_url" "SELECT string_agg(c.relname || '.' || a.attname || '=' || a.attcompression::text, ' ' ORDER BY c.relname) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE (c.relname, a.attname) IN (('runs', 'report'), ('run_digests', 'digest'), ('sku_answers', 'answer'))")
if [[ $lz4 == 1 ]]; then
    [[ $compression == "run_digests.digest=l runs.report=l sku_answers.answer=l" ]] ||
        fail "lz4 is not set: $compression"
else
    echo "note: this PostgreSQL has no lz4; its columns keep pglz: $compression"
fi

# Another application's database, and a damaged schema_info: refused with one line (exit 2),
# nothing added or changed.
make_report "$fleet_fixture" "$work/one.json" host-one
db_sql "$pg_url" "CREATE DATABASE otherapp"
other_url=${pg_url/\/postgres\?/\/otherapp?}
db_sql "$other_url" "CREATE TABLE foo (x integer)"
expect_error 2 "holds other tables (1) but no hugetune schema" "$bin" fleet ingest --db "$other_url" "$work/one.json"
[[ $(db_sql "$other_url" "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()") == 1 ]] ||
    fail "tables were added to another application's database"
db_sql "$pg_url" "CREATE DATABASE damaged"
damaged_url=${pg_url/\/postgres\?/\/damaged?}
expect 0 "$bin" fleet ingest --db "$damaged_url" "$work/one.json"
for value in -1 0 2147483647; do
    db_sql "$damaged_url" "UPDATE schema_info SET version = $value"
    expect_error 2 "schema_info.version is '$value', not a schema version" "$bin" fleet skus --db "$damaged_url"
done
db_sql "$damaged_url" "UPDATE schema_info SET version = 2147483647"
expect_error 2 "not a schema version" "$bin" fleet ingest --db "$damaged_url" "$work/one.json"
[[ $(run_count "$damaged_url") == 1 ]] || fail "a damaged database gained a run"
# Behind another session's lock an ingest gives up after lock_timeout, naming the lock, instead
# of waiting as long as that session lasts: here a session holding the ingest lock for 60 s,
# and lock_timeout set to 1 s in the URL (hugetune's own default is 30 s).
psql -X -q -t -A "$pg_url" -c "SELECT pg_advisory_lock(4712), pg_sleep(60)" >/dev/null 2>&1 &
holder=$!
for ((i = 0; i < 100; i++)); do
    [[ $(db_sql "$pg_url" "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory'") -ge 1 ]] && break
    sleep 0.1
done
started=$SECONDS
expect_error 1 "another session holds a lock this needs" timeout 50 "$bin" fleet ingest \
    --db "$pg_url&options=-c%20lock_timeout%3D1000" "$work/one.json"
(( SECONDS - started < 30 )) || fail "the ingest waited $((SECONDS - started)) s behind the lock"
kill "$holder" 2>/dev/null || true
# The server's side of that session sleeps on, holding the lock, until it is ended too.
db_sql "$pg_url" "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_advisory_lock(4712)%' AND pid <> pg_backend_pid()" >/dev/null
wait "$holder" 2>/dev/null || true
host_names_suite "$pg_url"
echo "fleet on PostgreSQL: all passed"
