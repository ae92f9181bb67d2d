#!/usr/bin/env bash
# The fleet database suite (tests/cli/lib/fleet.bash) on a real PostgreSQL server: Debian's
# postgresql package, initdb into the scratch directory as `nobody`, a unix socket there only,
# stopped by its PID when the script ends, also on failure. When it cannot start: a skip that
# says why, never a pass.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/fleet.bash"
source "$(dirname "$0")/lib/hostile_boots.bash"
require_command python3 "the suite edits reports with it"
require_command readelf "it reads the binary's build ID (Debian: binutils)"
start_postgres
fleet_suite "$pg_url"
heap_pages_suite "$pg_url"

# Migrations 8 and 17: the large texts compressed with lz4 where the server has it, pglz (the column's
# default, '') where it does not; a server without lz4 is no reason to refuse the database.
lz4=$(db_sql "$pg_url" "SELECT COUNT(*) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)")
compression=$(db_sql "$pg_url" "SELECT string_agg(c.relname || '.' || a.attname || '=' || a.attcompression::text, ' ' ORDER BY c.relname, a.attname) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE (c.relname, a.attname) IN (('runs', 'report'), ('run_digests', 'digest'), ('sku_answers', 'answer'), ('sku_answers', 'fit'))")
if [[ $lz4 == 1 ]]; then
    [[ $compression == "run_digests.digest=l runs.report=l sku_answers.answer=l sku_answers.fit=l" ]] ||
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
db_sql "$pg_url" "CREATE DATABASE boots"
boots_url=${pg_url/\/postgres\?//boots?}
boots_suite "$boots_url"
# More records than one COPY takes (fleet_db/boot_store.hpp kBootCopyRows), the boot given twice
# in another COPY than its first.
db_sql "$pg_url" "CREATE DATABASE boot_lines"
boot_lines_suite "${pg_url/\/postgres\?//boot_lines?}" 2600
# Reports in more than one of the groups PostgreSQL's ingest sends (ingest_batch.cpp kRunCopyRows),
# filed and stored as SQLite does.
db_sql "$pg_url" "CREATE DATABASE groups"
groups_suite "${pg_url/\/postgres\?//groups?}"
db_sql "$pg_url" "CREATE DATABASE stale"
stale_suite "${pg_url/\/postgres\?//stale?}"
db_sql "$pg_url" "CREATE DATABASE hwid"
hardware_identity_suite "${pg_url/\/postgres\?//hwid?}"

# The boot writer role (fleet_db/sql/boot-writer-role.sql, as docs/fleet.md "The boot writer
# role" makes it): it adds boot records, through verify, and reads, updates and deletes nothing.
psql -X -q -v ON_ERROR_STOP=1 -f "$src/fleet_db/sql/boot-writer-role.sql" "$boots_url" >/dev/null ||
    fail "the role's SQL failed"
writer_url=${boots_url/user=hugetune/user=hugetune_boot}
before=$(db_sql "$boots_url" "SELECT COUNT(*) FROM boot_records")
echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f70" >"$work/boot-host/proc/sys/kernel/random/boot_id"
expect 0 "$bin" verify --root "$work/boot-host" --fleet-db "$writer_url"
stdout_has "sent 1 boot record, 0 stored before"
expect 0 "$bin" verify --root "$work/boot-host" --fleet-db "$writer_url"
stdout_has "sent 0 boot records, 1 stored before"
[[ $(db_sql "$boots_url" "SELECT COUNT(*) FROM boot_records") == $((before + 1)) ]] || fail "the writer stored nothing"
for sql in "SELECT COUNT(*) FROM boot_records" "SELECT COUNT(*) FROM runs" "SELECT COUNT(*) FROM hosts"     "DELETE FROM boot_records" "UPDATE boot_records SET host = 'x'" "DELETE FROM runs" "DROP TABLE boot_records"; do
    psql -X -q -t -A "$writer_url" -c "$sql" >"$work/writer.out" 2>&1 && fail "the writer role could: $sql"
    grep -Eq "permission denied|must be owner" "$work/writer.out" || fail "$sql: $(cat "$work/writer.out")"
done
[[ $(db_sql "$boots_url" "SELECT COUNT(*) FROM boot_records") == $((before + 1)) ]] || fail "the writer changed rows"
expect_error 1 "permission denied" "$bin" fleet skus --db "$writer_url"
# The role writes through the function or not at all: no raw INSERT (a row the reader refuses,
# or ids taken ahead of the boots to come), and the function's rows meet the reader's rules.
row="'k-raw', 'boot-h1', 'x/1n/1t/1g/2048k', NULL, '6.15.3', 8, 2048, 99999, -5000, 1, NULL, 0, 0, NULL, 'not a time', 'not json'"
for sql in "INSERT INTO boot_records (boot_key, host, sku_key, boot_id, kernel_release, pool_pages, page_size_kb, threads, milliseconds, line_present, absent_code, init_on_alloc, hvo, expected_threads, recorded_at, record) VALUES ($row)"     "INSERT INTO boot_records (id, boot_key, line_present, recorded_at, record) OVERRIDING SYSTEM VALUE SELECT g, 'k' || g, 0, 'x', 'x' FROM generate_series(1, 100000) g"; do
    psql -X -q -t -A "$writer_url" -c "$sql" >"$work/writer.out" 2>&1 && fail "the writer role could: $sql"
    grep -q "permission denied" "$work/writer.out" || fail "$sql: $(cat "$work/writer.out")"
done
psql -X -q -t -A "$writer_url" -c "SELECT hugetune_add_boot_record($row)" >"$work/writer.out" 2>&1 &&
    fail "the function took a record the reader refuses"
grep -Eq "violates check constraint|invalid input syntax for type json" "$work/writer.out" ||
    fail "the function refused otherwise: $(cat "$work/writer.out")"
# Not even the owner sets an id: the database draws them.
db_sql "$boots_url" "INSERT INTO boot_records (id, boot_key, line_present, absent_code, recorded_at, record) VALUES (999999, 'k-id', 0, 'no_log', '2026-12-01T00:00:00Z', '{}')" \
    >"$work/owner.out" 2>&1 && fail "an id was set by hand"
grep -q "GENERATED ALWAYS" "$work/owner.out" || fail "owner's id: $(cat "$work/owner.out")"
[[ $(db_sql "$boots_url" "SELECT COUNT(*) FROM boot_records") == $((before + 1)) ]] || fail "a refused row was stored"
# Forged boots of every kind, through ingest and as the role (tests/cli/lib/hostile_boots.bash).
db_sql "$pg_url" "CREATE DATABASE hostile"
hostile_url=${pg_url/\/postgres\?//hostile?}
expect 0 "$bin" fleet skus --db "$hostile_url"
psql -X -q -v ON_ERROR_STOP=1 -f "$src/fleet_db/sql/boot-writer-role.sql" "$hostile_url" >/dev/null ||
    fail "the role's SQL failed on the hostile database"
hostile_boots_suite "$hostile_url" "${hostile_url/user=hugetune/user=hugetune_boot}"
# The spool survives a dead server: the record of a boot while it is down waits, and is sent
# when it is back (here by --flush, as the role).
echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f71" >"$work/boot-host/proc/sys/kernel/random/boot_id"
kill -INT "$pg_pid"
wait "$pg_pid" 2>/dev/null || true
expect 0 "$bin" verify --root "$work/boot-host" --fleet-db "$writer_url"
stderr_has "1 record waits in"
start_postgres_again
HUGETUNE_FLEET_DB=$writer_url expect 0 "$bin" verify --root "$work/boot-host" --flush
stdout_has "sent 1 boot record, 0 stored before"
[[ $(db_sql "$boots_url" "SELECT COUNT(*) FROM boot_records") == $((before + 2)) ]] || fail "the spooled record was lost"
# The function holds records to the report's clock and host rules too: year 0000 and 2099 are
# refused, and a host in capitals with a trailing dot is stored as the host-name rule compares
# it, one boot with the same boot's record under its stored name; the record's virtualization is
# the row's.
fn_row() {  # fn_row HOST RECORDED_AT: a record without the line, as the function takes it
    local id=3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f7f
    local record="{\"kind\": \"hugetune-boot-record\", \"host\": \"$1\", \"boot_id\": \"$id\", \"kernel_release\": null, \"recorded_at\": \"$2\", \"threads\": null, \"milliseconds\": null, \"pool\": null, \"virtualization\": \"KVM\"}"
    echo "'boot $1 $id', '$1', NULL, '$id', NULL, NULL, 0, NULL, NULL, 0, 'no_log', NULL, NULL, NULL, '$2', '$record'"
}
for at in 0000-01-01T00:00:00Z 2024-12-31T23:59:59Z 2099-01-01T00:00:00Z; do
    psql -X -q -t -A "$writer_url" -c "SELECT hugetune_add_boot_record($(fn_row fn-host "$at"))" >"$work/writer.out" 2>&1 &&
        fail "the function took a record of $at"
    grep -q "violates check constraint" "$work/writer.out" || fail "$at refused otherwise: $(cat "$work/writer.out")"
done
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
[[ $(psql -X -q -t -A "$writer_url" -c "SELECT hugetune_add_boot_record($(fn_row FN-HOST. "$now"))") == 1 ]] ||
    fail "the function did not take FN-HOST."
[[ $(psql -X -q -t -A "$writer_url" -c "SELECT hugetune_add_boot_record($(fn_row fn-host "$now"))") == "" ]] ||
    fail "one boot under two spellings was stored twice"
[[ $(db_sql "$boots_url" "SELECT host || ' ' || boot_key || ' ' || virtualization FROM boot_records WHERE boot_id LIKE '%7f'") == \
    "fn-host boot fn-host 3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f7f KVM" ]] ||
    fail "the function's row: $(db_sql "$boots_url" "SELECT host, boot_key, virtualization FROM boot_records WHERE boot_id LIKE '%7f'")"
echo "fleet on PostgreSQL: all passed"
