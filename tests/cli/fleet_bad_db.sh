#!/usr/bin/env bash
# The fleet database that cannot be used: a corrupted SQLite file, a read-only one, a missing
# one, a PostgreSQL connection string to nothing, a bad --db path. One error line each, the
# exit code of its kind, and the file left as it was.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/fleet.bash"
require_command python3 "the test edits reports and reads the database with it"
make_report "$fleet_fixture" "$work/a.json" host-a

# A file that is not a database: refused (exit 2), not overwritten.
head -c 4096 /dev/urandom >"$work/corrupt.db"
cp "$work/corrupt.db" "$work/corrupt.orig"
expect_error 2 "$work/corrupt.db: not a usable SQLite database" "$bin" fleet ingest --db "$work/corrupt.db" "$work/a.json"
stderr_has "point --db at a hugetune fleet database or a new file"
expect_error 2 "not a usable SQLite database" "$bin" fleet skus --db "$work/corrupt.db"
cmp -s "$work/corrupt.db" "$work/corrupt.orig" || fail "the corrupted file was changed"

# A damaged page inside a real database: refused when read, never half-used.
expect 0 "$bin" fleet ingest --db "$work/damaged.db" "$work/a.json"
python3 -S - "$work/damaged.db" <<'PY'
import sys
f = open(sys.argv[1], "r+b")
f.seek(4096)              # the second page onwards: the tables, not the header
f.write(b"\xff" * 8192)
PY
rc=0
"$bin" fleet skus --db "$work/damaged.db" >"$out" 2>"$err" || rc=$?
[[ $rc == 1 || $rc == 2 ]] || fail "a damaged database gave exit $rc: $(cat "$err")"
one_error_line
stderr_matches "^hugetune: error: $work/damaged.db: "

# No database at the path: the read commands say how to make one; ingest's missing directory too.
expect_error 2 "$work/none.db: no fleet database there; ingest reports first" "$bin" fleet skus --db "$work/none.db"
[[ ! -e $work/none.db ]] || fail "a read command created the database"
expect_error 2 "directory $work/missing does not exist" "$bin" fleet ingest --db "$work/missing/f.db" "$work/a.json"
mkdir "$work/dir.db"
expect_error 2 "not a regular file" "$bin" fleet ingest --db "$work/dir.db" "$work/a.json"

# PostgreSQL that is not there: a runtime failure naming the server and the fix, no password.
expect_error 1 "check the server is running and the connection string" "$bin" fleet skus \
    --db "postgresql://hugetune:secret@/postgres?host=$work/no-server"
stderr_has "postgresql://hugetune:***@/postgres"
grep -q secret "$err" && fail "the password reached the message: $(cat "$err")"
HUGETUNE_DB="postgresql:///x?host=$work/no-server&password=hidden" expect 1 "$bin" fleet skus
grep -q hidden "$err" && fail "the password reached the message: $(cat "$err")"
# URLs libpq cannot parse (its own PQconninfoParse says so before anything is tried: a usage
# error, its quoted parts hidden), libpq's readings that would show part of a password as a host
# or port, and near-URLs that are no SQLite path (refused, exit 2): the password in none of the
# messages.
for db in "postgresql://u:Secret@[::1]x/db" "postgresql://u:Secret@[]/db" \
    "postgresql://u:Secret@[::1" "postgresql://u:Leak4%Secret@$work/no-server/db" \
    "postgresql://u:First@Secret@$work/no-server/db" "postgresql://u:Pass/Secret@h/db" \
    "postgresql:///x?host=$work/no-server&password=First&Secret" "host=h password=First Secret"; do
    expect_error 2 "(not shown)" timeout 60 "$bin" fleet skus --db "$db"
    grep -q Secret "$err" && fail "the password reached the message: $(cat "$err")"
    grep -q '\\n' "$err" && fail "a literal \\n in the message: $(cat "$err")"
done
for db in "PostgreSQL://u:Secret@h/db" "postgresql:u:Secret@h/db" "postgresql//u:Secret@h/db" \
    " postgresql://u:Secret@h/db"; do
    expect_error 2 "looks like a PostgreSQL connection URL but is not one" "$bin" fleet skus --db "$db"
    grep -q Secret "$err" && fail "the password reached the message: $(cat "$err")"
done
one_error_line

# A libpq keyword/value string is a PostgreSQL connection, not a SQLite path, and its password
# (plain or quoted) never reaches a message.
for password in secretpw "'sec ret pw'"; do
    expect_error 1 "check the server is running and the connection string" "$bin" fleet skus \
        --db "host=$work/no-server dbname=x user=u password=$password"
    stderr_has "password=***"
    grep -qE 'secretpw|sec ret' "$err" && fail "the password reached the message: $(cat "$err")"
done
[[ ! -e "host=$work/no-server dbname=x user=u password=secretpw" ]] || fail "taken for a SQLite path"

# A server that accepts the connection and never answers: the default connect timeout ends the
# wait (10 s), and a connection string's own connect_timeout is kept (1 s).
port=$(python3 -S -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -S - "$port" <<'PY' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
held = []
while True:
    held.append(s.accept()[0])  # accepted, never answered
PY
listener=$!
at_exit "kill $listener 2>/dev/null; wait $listener 2>/dev/null"
for _ in $(seq 50); do
    python3 -S -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null && break
    sleep 0.1
done
started=$SECONDS
expect_error 1 "127.0.0.1" timeout 60 "$bin" fleet skus --db "postgresql://u@127.0.0.1:$port/x?connect_timeout=1"
((SECONDS - started < 30)) || fail "connect_timeout=1 waited $((SECONDS - started)) s"
started=$SECONDS
expect_error 1 "check the server is running" timeout 60 "$bin" fleet skus --db "postgresql://u@127.0.0.1:$port/x"
((SECONDS - started < 45)) || fail "the default connect timeout waited $((SECONDS - started)) s"
kill "$listener"

# A damaged schema_info: one line naming the value (exit 2), the file untouched, whatever the
# value (none may pick a migration or crash the reader).
expect 0 "$bin" fleet ingest --db "$work/schema.db" "$work/a.json"
for value in -1 -5 0 2147483648 4294967298 9223372036854775807 "'abc'"; do
    cp "$work/schema.db" "$work/bad-schema.db"
    python3 -S -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE schema_info SET version = " + sys.argv[2]); c.commit()' \
        "$work/bad-schema.db" "$value"
    cp "$work/bad-schema.db" "$work/bad-schema.orig"
    expect_error 2 "schema_info.version is '${value//\'/}', not a schema version" "$bin" fleet skus --db "$work/bad-schema.db"
    expect_error 2 "the database is damaged" "$bin" fleet ingest --db "$work/bad-schema.db" "$work/a.json"
    cmp -s "$work/bad-schema.db" "$work/bad-schema.orig" || fail "schema_info $value: the file was changed"
done
cp "$work/schema.db" "$work/two-rows.db"
python3 -S -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("INSERT INTO schema_info VALUES (1)"); c.commit()' "$work/two-rows.db"
expect_error 2 "schema_info holds 2 rows, not one schema version" "$bin" fleet skus --db "$work/two-rows.db"

# Another application's SQLite file: hugetune's tables are not added beside its own.
python3 -S -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE foo (x)"); c.commit()' "$work/other-app.db"
cp "$work/other-app.db" "$work/other-app.orig"
expect_error 2 "holds other tables (1) but no hugetune schema" "$bin" fleet ingest --db "$work/other-app.db" "$work/a.json"
cmp -s "$work/other-app.db" "$work/other-app.orig" || fail "another application's database was changed"

# A read-only database: read commands work, ingest fails with one line and stores nothing.
if is_root && as_nobody true 2>/dev/null; then
    nobody_bin=$(nobody_copy "$bin")
    expect 0 "$bin" fleet ingest --db "$work/nobody/ro.db" "$work/a.json"
    make_report "$fleet_fixture" "$work/nobody/b.json" host-b
    chmod 644 "$work/nobody/ro.db" "$work/nobody/b.json"
    chmod 755 "$work/nobody"
    expect 0 as_nobody "$nobody_bin" fleet skus --db "$work/nobody/ro.db" --json
    [[ $(json_field "$out" 'len(d)') == 1 ]] || fail "skus on a read-only database: $(cat "$out")"
    [[ $(db_sql "$work/nobody/ro.db" "SELECT COUNT(*) FROM sku_answers") == 0 ]] ||
        fail "a read-only database kept an answer"
    expect_error 1 "the database cannot be written" as_nobody "$nobody_bin" fleet ingest --db "$work/nobody/ro.db" "$work/nobody/b.json"
    [[ $(run_count "$work/nobody/ro.db") == 1 ]] || fail "a read-only database gained a run"
    # Listing and a dry run only read; forgetting fails with one line and removes nothing.
    expect 0 as_nobody "$nobody_bin" fleet runs --db "$work/nobody/ro.db"
    stdout_matches "^host-a  [0-9a-f]{16}  "
    expect 0 as_nobody "$nobody_bin" fleet forget --db "$work/nobody/ro.db" --host host-a --dry-run
    stdout_has "would forget 1 run, "
    expect_error 1 "the database cannot be written" as_nobody "$nobody_bin" fleet forget --db "$work/nobody/ro.db" --host host-a
    [[ $(run_count "$work/nobody/ro.db") == 1 ]] || fail "a read-only database lost a run"
else
    echo "note: the read-only case needs root and setpriv to run as nobody; left out here"
fi

# Bad usage of the commands themselves.
expect_error 2 "fleet: unknown subcommand 'bogus'" "$bin" fleet bogus
expect 2 "$bin" fleet  # the subcommands on stderr, as boot-sweep does, then the error
[[ $(tail -1 "$err") == "hugetune: error: fleet: give a subcommand (ingest, skus, recommend, hosts, export, runs, forget, plan)" ]] || fail "$(cat "$err")"
expect_error 2 "fleet ingest: give report or boot record files" "$bin" fleet ingest --db "$work/x.db"
expect_error 2 "unknown option '--nope'" "$bin" fleet skus --nope
expect_error 2 "--prometheus: node_exporter's textfile collector reads only *.prom" "$bin" verify --prometheus "$work/x.txt"
echo "fleet bad databases: all passed"
