# The fleet database's suite, run the same on SQLite (fleet_sqlite.sh) and on a throwaway
# PostgreSQL server (fleet_postgres.sh). Reports are real ones (tests/fixtures/fleet, written by
# `hugetune run`) with host, time or SKU changed by python; the analysis' numbers are the
# model's business (model/fleet), so the checks here are about storage, refusals and formats.
# shellcheck shell=bash

fleet_fixture=$src/tests/fixtures/fleet/report-1.json
fleet_fixture2=$src/tests/fixtures/fleet/report-2.json

# A host's own samples: every sample moved by its own share of at most 3 parts in 1,000 either
# way, which the name, the point and the sample choose, as two runs of one machine differ in every
# sample (by a percent and more). The fleet takes hosts whose samples agree within a part in a
# million for one machine under two names (docs/fleet.md "The host-name rule"); hosts made of one
# report stay apart so. nudge_samples moves every sample by one SHARE instead: a copy.
own_samples_py='
import zlib
def own_samples(doc, host):
    for p, point in enumerate(doc["sweep"]["points"]):
        s = point["samples_seconds"]
        for i in range(len(s)):
            share = zlib.crc32(f"{host}/{p}/{i}".encode()) % 2001 / 1000 - 1
            s[i] = s[i] * (1 + 0.003 * share)
'

# make_report SRC OUT HOST [TIME] [MODEL] [KERNEL]: SRC with those fields changed, and the samples
# the host's own. MODEL makes the CPU an Intel family 6 model no table names, its SKU microarch
# intel-6-MODEL-0 (docs/fleet.md).
make_report() {
    OWN_SAMPLES=$own_samples_py python3 -S - "$@" <<'PY'
import json, os, sys
exec(os.environ["OWN_SAMPLES"])
src, out, host = sys.argv[1:4]
extra = sys.argv[4:] + [""] * 3
doc = json.load(open(src))
doc["host"]["hostname"] = host
own_samples(doc, host)
if extra[0]: doc["generated_at"] = extra[0]
if extra[1]:
    doc["cpu"].update({"vendor": "GenuineIntel", "family": 6, "model": int(extra[1]), "stepping": 0,
                       "microarch": "intel-6-%s-0" % extra[1]})
    doc["sku"]["microarch"] = "intel-6-%s-0" % extra[1]
if extra[2]: doc["kernel"]["release"] = extra[2]
json.dump(doc, open(out, "w"), indent=1)
PY
}

# rename_report SRC OUT HOST [MODEL]: SRC under another name (and SKU, as make_report's MODEL), the samples
# unchanged: the same machine's report saved as another host.
rename_report() {
    python3 -S -c 'import json, sys
doc = json.load(open(sys.argv[1]))
doc["host"]["hostname"] = sys.argv[3]
if len(sys.argv) > 4:
    doc["cpu"].update({"vendor": "GenuineIntel", "family": 6, "model": int(sys.argv[4]), "stepping": 0,
                       "microarch": "intel-6-%s-0" % sys.argv[4]})
    doc["sku"]["microarch"] = "intel-6-%s-0" % sys.argv[4]
json.dump(doc, open(sys.argv[2], "w"), indent=1)' "$@"
}

# nudge_report SRC OUT HOST SHARE: SRC under another name, every sample times 1 + SHARE: one
# machine's report copied with its numbers nudged.
nudge_report() {
    python3 -S -c 'import json, sys
doc = json.load(open(sys.argv[1]))
doc["host"]["hostname"] = sys.argv[3]
for point in doc["sweep"]["points"]:
    point["samples_seconds"] = [s * (1 + float(sys.argv[4])) for s in point["samples_seconds"]]
json.dump(doc, open(sys.argv[2], "w"), indent=1)' "$@"
}

# make_reports SRC DIR PREFIX N: DIR/PREFIXi.json for i in 1..N, host PREFIXi, in one python.
make_reports() {
    OWN_SAMPLES=$own_samples_py python3 -S - "$@" <<'PY'
import copy, json, os, sys
exec(os.environ["OWN_SAMPLES"])
src, out, prefix, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
base = json.load(open(src))
for i in range(1, n + 1):
    doc = copy.deepcopy(base)
    doc["host"]["hostname"] = f"{prefix}{i}"
    own_samples(doc, f"{prefix}{i}")
    json.dump(doc, open(f"{out}/{prefix}{i}.json", "w"))
PY
}

# make_large_report SRC OUT SAMPLES [INDENT]: SRC with each sweep point's samples repeated until
# the report holds about SAMPLES of them (the medians and spreads stay true), written with
# INDENT (default 1): a report of many MB that every check accepts.
make_large_report() {
    python3 -S - "$@" <<'PY'
import json, sys
src, out, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
indent = int(sys.argv[4]) if len(sys.argv) > 4 else 1
doc = json.load(open(src))
points = doc["sweep"]["points"]
held = sum(len(p["samples_seconds"]) for p in points)
times = max(1, want // held)
for p in points:
    p["samples_seconds"] = p["samples_seconds"] * times
json.dump(doc, open(out, "w"), indent=indent)
PY
}

# peak_rss_kb OUT COMMAND...: runs COMMAND with stdout and stderr in OUT, prints its peak
# resident memory in kB (the kernel's own count, getrusage of the child); its exit code is kept.
peak_rss_kb() {
    python3 -S - "$@" <<'PY'
import resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)
PY
}

# db_sql DB SQL: one statement straight on the database, its first column printed.
db_sql() {
    if [[ $1 == postgresql://* ]]; then
        psql -X -q -t -A -v ON_ERROR_STOP=1 "$1" -c "$2"
    else
        python3 -S -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for row in c.execute(sys.argv[2]): print(row[0])
c.commit()' "$1" "$2"
    fi
}
run_count() { db_sql "$1" "SELECT COUNT(*) FROM runs"; }

# undo_boot_reported DB: what migration 18 made taken away (boot_records.reported, its index and
# the triggers that keep it), for a test that takes a database back to an older version.
undo_boot_reported() {
    local db=$1 t
    if [[ $db == postgresql://* ]]; then
        for t in runs hosts skus; do
            db_sql "$db" "DROP TRIGGER IF EXISTS ${t}_report_boots ON $t" >/dev/null
        done
        db_sql "$db" "ALTER TABLE IF EXISTS boot_records DROP COLUMN IF EXISTS reported CASCADE" >/dev/null
        return
    fi
    for t in $(db_sql "$db" "SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%reported%'"); do
        db_sql "$db" "DROP TRIGGER $t" >/dev/null
    done
    db_sql "$db" "DROP INDEX IF EXISTS boot_records_tally" >/dev/null
    db_sql "$db" "DROP INDEX IF EXISTS boot_records_by_host" >/dev/null
    if [[ $(db_sql "$db" "SELECT COUNT(*) FROM pragma_table_info('boot_records') WHERE name = 'reported'") == 1 ]]; then
        db_sql "$db" "ALTER TABLE boot_records DROP COLUMN reported" >/dev/null
    fi
}

# sku_key_of REPORT: the report's SKU key as hugetune prints it (docs/fleet.md); init_on_alloc
# from the sku block, else, for reports made before it was there, from the kernel block.
sku_key_of() {
    python3 -S -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = d["sku"]
ioa = s.get("init_on_alloc", d.get("kernel", {}).get("init_on_alloc"))
print("%s/%dn/%dt/%dg/%dk" % tuple(s[k] for k in ("microarch", "nodes", "hardware_threads_per_node", "memory_per_node_gib", "page_size_kb")) + ("" if ioa is None else "/ioa%d" % ioa))' "$1"
}

# json_field FILE PYTHON_EXPRESSION_OF_d
json_field() { python3 -S -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# timed COMMAND... (the benches): "SECONDS PEAK_KB" of COMMAND, which must succeed: wall time
# and the peak resident memory the kernel counted for it (getrusage of the child).
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

# start_postgres: a throwaway server as `nobody` in $work, on a unix socket there only; stopped
# by its PID when the script ends, however it ends. Sets $pg_url, or skips with the reason.
start_postgres() {
    local bindir
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [[ -x $bindir/initdb && -x $bindir/postgres ]] ||
        skip "PostgreSQL's server is not installed (Debian package postgresql; make test-deps)"
    command -v psql >/dev/null || skip "psql is not installed (Debian package postgresql-client)"
    is_root || skip "starting PostgreSQL as an unprivileged user needs root to switch to it"
    local dir=$work/pg
    mkdir -m 700 "$dir"
    chown 65534:65534 "$dir"
    chmod 755 "$work"
    as_nobody env -i PATH=/usr/bin:/bin "$bindir/initdb" -D "$dir/data" --auth=trust -U hugetune \
        --no-sync -E UTF8 >"$work/initdb.log" 2>&1 ||
        skip "initdb failed: $(tail -1 "$work/initdb.log")"
    at_exit 'kill -INT "$pg_pid" 2>/dev/null; wait "$pg_pid" 2>/dev/null'
    pg_bindir=$bindir
    start_postgres_again skip
}

# start_postgres_again [skip]: the server of start_postgres started once more, after the test
# stopped it (kill -INT "$pg_pid"); a server that does not come back fails the test.
start_postgres_again() {
    local dir=$work/pg bindir=$pg_bindir give_up=${1:-fail}
    # setpriv itself in the background, not the as_nobody function: a function would run in a
    # subshell whose PID is not the server's, and the server would outlive the test.
    setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin \
        "$bindir/postgres" -D "$dir/data" -k "$dir" -c listen_addresses= -c fsync=off \
        >"$work/postgres.log" 2>&1 &
    pg_pid=$!  # SIGINT: PostgreSQL's fast shutdown, which ends any session still open
    pg_url="postgresql:///postgres?host=$dir&user=hugetune"
    local i
    for ((i = 0; i < 100; i++)); do
        psql -X -q -t -A "$pg_url" -c 'SELECT 1' >/dev/null 2>&1 && return 0
        kill -0 "$pg_pid" 2>/dev/null || "$give_up" "PostgreSQL did not start: $(tail -1 "$work/postgres.log")"
        sleep 0.1
    done
    "$give_up" "PostgreSQL did not answer within 10 s: $(tail -1 "$work/postgres.log")"
}

fleet_suite() {
    local db=$1 d=$work/reports
    mkdir -p "$d"
    local sku_a sku_b
    for h in host-a host-b host-c; do make_report "$fleet_fixture" "$d/$h.json" "$h"; done
    make_report "$fleet_fixture2" "$d/host-d.json" host-d "" "" 9.9.9-other
    make_report "$fleet_fixture" "$d/other-1.json" other-1 "" 1001
    sku_a=$(sku_key_of "$fleet_fixture")
    sku_b=intel-6-1001-0/${sku_a#*/}

    # 1. A directory, once: every report added; again: every one already stored.
    expect 0 "$bin" fleet ingest --db "$db" --json "$d"
    [[ $(json_field "$out" 'len(d["added"])') == 5 ]] || fail "not 5 added: $(cat "$out")"
    [[ $(run_count "$db") == 5 ]] || fail "runs: $(run_count "$db")"
    expect 0 "$bin" fleet ingest --db "$db" --json "$d" "$d/host-a.json"
    [[ $(json_field "$out" 'len(d["skipped"]), len(d["added"])') == "(6, 0)" ]] || fail "re-ingest: $(cat "$out")"
    [[ $(run_count "$db") == 5 ]] || fail "a report stored twice: $(run_count "$db") runs"
    # The same host and time with other content is a conflict: said, not stored, the first
    # stands (one run per host and time).
    make_report "$fleet_fixture2" "$work/host-a-same-time.json" host-a
    expect 2 "$bin" fleet ingest --db "$db" --json "$work/host-a-same-time.json"
    [[ $(json_field "$out" 'd["conflicts"], len(d["added"])') == "(['$work/host-a-same-time.json'], 0)" ]] ||
        fail "conflict: $(cat "$out")"
    stderr_has "refused $work/host-a-same-time.json: conflict: its host already has another report with the same generated_at"
    [[ $(run_count "$db") == 5 ]] || fail "a conflicting report was stored: $(run_count "$db") runs"
    # Also within one batch, for a host new to the database: the first stored, the second a
    # conflict, the first again already stored.
    make_report "$fleet_fixture" "$work/host-n-1.json" host-n
    make_report "$fleet_fixture2" "$work/host-n-2.json" host-n
    expect 2 "$bin" fleet ingest --db "$db" --json "$work/host-n-1.json" "$work/host-n-2.json" "$work/host-n-1.json"
    [[ $(json_field "$out" 'd["conflicts"], len(d["added"]), len(d["skipped"])') == "(['$work/host-n-2.json'], 1, 1)" ]] ||
        fail "conflict in one batch: $(cat "$out")"
    expect 0 "$bin" fleet forget --db "$db" --host host-n
    [[ $(run_count "$db") == 5 ]] || fail "runs after forgetting host-n: $(run_count "$db")"
    # A later report of the host is another run; stdin is read with `-`.
    make_report "$fleet_fixture2" "$d/host-a-rerun.json" host-a 2026-12-02T08:00:00Z
    expect 0 "$bin" fleet ingest --db "$db" - <"$d/host-a-rerun.json"
    stdout_has "added 1,"
    [[ $(run_count "$db") == 6 ]] || fail "stdin run not stored"

    # 2. A verification block added later by `hugetune verify --report` is added on re-ingest.
    local logs=$src/tests/fixtures/boot/logs
    cp "$d/host-b.json" "$work/verified.json"
    echo "BOOT_IMAGE=/vmlinuz root=/dev/sda1 hugepagesz=2M hugepages=524288 hugepage_alloc_threads=32" >"$work/cmdline"
    "$bin" verify --log "$logs/dmesg-6.15-threads32.log" --cmdline "$work/cmdline" \
        --report "$work/verified.json" --prometheus "$work/boot.prom" >/dev/null 2>&1 || true
    [[ $(json_field "$work/verified.json" 'd["verification"]["measured_ms"]') == 706 ]] ||
        fail "verify added no verification block"
    grep -q "^hugetune_boot_allocation_seconds{sku=\"$sku_a\",kernel=\"[^\"]*\"} 0.706" "$work/boot.prom" ||
        fail "verify --prometheus: $(cat "$work/boot.prom")"
    expect 0 "$bin" fleet ingest --db "$db" --json "$work/verified.json"
    [[ $(json_field "$out" 'd["verification_added"]') == "['$work/verified.json']" ]] || fail "verification: $(cat "$out")"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM verifications") == 1 ]] || fail "verification not stored"
    expect 0 "$bin" fleet ingest --db "$db" --json "$work/verified.json"
    [[ $(json_field "$out" 'len(d["skipped"])') == 1 ]] || fail "verification stored twice: $(cat "$out")"
    [[ $(run_count "$db") == 6 ]] || fail "a verified report became another run"
    # The same report verified at another boot is a second verification of the run, kept beside
    # the first; each again, even in one batch, is already stored.
    cp "$d/host-b.json" "$work/verified2.json"
    echo "BOOT_IMAGE=/vmlinuz root=/dev/sda1 hugepagesz=2M hugepages=524288 hugepage_alloc_threads=16" >"$work/cmdline16"
    "$bin" verify --log "$logs/kmsg-6.15-threads16.log" --cmdline "$work/cmdline16" \
        --report "$work/verified2.json" >/dev/null 2>&1 || true
    [[ $(json_field "$work/verified2.json" 'd["verification"]["measured_ms"]') != 706 ]] ||
        fail "the second boot's verification is the first one's"
    expect 0 "$bin" fleet ingest --db "$db" --json "$work/verified2.json"
    [[ $(json_field "$out" 'd["verification_added"]') == "['$work/verified2.json']" ]] || fail "second verification: $(cat "$out")"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM verifications") == 2 ]] || fail "the second verification was not stored"
    expect 0 "$bin" fleet ingest --db "$db" --json "$work/verified.json" "$work/verified2.json" "$work/verified2.json"
    [[ $(json_field "$out" 'len(d["skipped"]), len(d["verification_added"])') == "(3, 0)" ]] || fail "verifications again: $(cat "$out")"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM verifications") == 2 && $(run_count "$db") == 6 ]] ||
        fail "a verification stored twice or a run added"
    expect 0 "$bin" fleet runs --db "$db" --host host-b --json
    [[ $(json_field "$out" '[len(r["verifications"]) for r in d]') == "[2]" ]] || fail "runs --host host-b: $(cat "$out")"
    # A forged block: a ratio no boot measures, or one its own times do not make, is refused
    # by the block's one reader, naming the field; nothing of it is stored.
    for forged in 'v["ratio"]=1e308' 'v["pool_predicted_ms"]=v["measured_ms"]; v["ratio"]=2.0'; do
        python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["verification"]; exec(sys.argv[3]); d["host"]["hostname"]="forged-1"; json.dump(d,open(sys.argv[2],"w"))' \
            "$work/verified.json" "$work/forged.json" "$forged"
        expect 2 "$bin" fleet ingest --db "$db" "$work/forged.json"
        stderr_has "refused $work/forged.json: verification.ratio: "
        [[ $(db_sql "$db" "SELECT COUNT(*) FROM hosts WHERE hostname = 'forged-1'") == 0 ]] ||
            fail "a forged verification ($forged) was stored"
    done

    # 3. Refusals: truncated, another schema_version, a schema violation, not JSON. Each is named
    # with its reason, nothing of it is stored, and the good report beside them is.
    head -c 3000 "$d/host-c.json" >"$work/truncated.json"
    python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); d["schema_version"]=2; json.dump(d,open(sys.argv[2],"w"))' "$d/host-c.json" "$work/v2.json"
    python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); d["host"]["hostname"]="bad-1"; d["sku"]["nodes"]="two"; json.dump(d,open(sys.argv[2],"w"))' "$d/host-c.json" "$work/badschema.json"
    echo "not json" >"$work/garbage.json"
    # A number no double holds, a key twice, host names neither backend may store differently.
    sed 's/"schema_version": *1/"schema_version": 1, "overflow": 1e999/' "$d/host-c.json" >"$work/overflow.json"
    sed 's/"schema_version": *1/"schema_version": 1, "schema_version": 1/' "$d/host-c.json" >"$work/twice.json"
    python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); d["host"]["hostname"]="x" * 1000000; json.dump(d,open(sys.argv[2],"w"))' "$d/host-c.json" "$work/longhost.json"
    python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); d["host"]["hostname"]="host-c\u0000evil"; json.dump(d,open(sys.argv[2],"w"))' "$d/host-c.json" "$work/nulhost.json"
    # A FIFO given as a report is never read (its writer could keep the ingest waiting while it
    # holds the database): refused by name, the others stored.
    mkfifo "$work/report.fifo"
    make_report "$fleet_fixture" "$work/beside-fifo.json" host-fifo
    expect 2 timeout 30 "$bin" fleet ingest --db "$db" --json "$work/report.fifo" "$work/beside-fifo.json"
    stderr_has "refused $work/report.fifo: a FIFO, which could keep the ingest waiting"
    [[ $(json_field "$out" 'd["added"]') == "['$work/beside-fifo.json']" ]] || fail "fifo: $(cat "$out")"
    expect 0 "$bin" fleet forget --db "$db" --host host-fifo
    # A skewed clock: stamped in 2099, it would stand as the host's newest report until then.
    python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); d["host"]["hostname"]="host-c"; d["generated_at"]="2099-01-01T00:00:00Z"; json.dump(d,open(sys.argv[2],"w"))' "$d/host-c.json" "$work/future.json"
    make_report "$fleet_fixture" "$work/good.json" host-e
    expect 2 "$bin" fleet ingest --db "$db" --json "$work/truncated.json" "$work/v2.json" \
        "$work/badschema.json" "$work/garbage.json" "$work/overflow.json" "$work/twice.json" \
        "$work/longhost.json" "$work/nulhost.json" "$work/future.json" "$work/good.json"
    stderr_matches "refused $work/future.json: generated_at 2099-01-01T00:00:00Z lies [0-9.]+ days after this ingest"
    stderr_has "refused $work/overflow.json: not a report hugetune writes: number overflow parsing '1e999'"
    stderr_has "refused $work/twice.json: not a report hugetune writes: key 'schema_version' appears twice"
    stderr_has "refused $work/longhost.json: host.hostname: is 1000000 bytes, above 253"
    stderr_has "refused $work/nulhost.json: host.hostname: holds a blank, a control character"
    stderr_has "refused $work/truncated.json: truncated"
    stderr_has "refused $work/v2.json: schema_version 2, this hugetune stores 1"
    stderr_has "refused $work/badschema.json: sku.nodes: must be a whole number"
    stderr_has "refused $work/garbage.json: not JSON"
    stderr_has "hugetune: error: fleet ingest: refused 9 of 10 reports"
    [[ $(json_field "$out" 'len(d["refused"]), d["added"]') == "(9, ['$work/good.json'])" ]] || fail "refusals: $(cat "$out")"
    [[ $(run_count "$db") == 7 ]] || fail "refused reports stored: $(run_count "$db") runs"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM hosts WHERE hostname = 'bad-1'") == 0 ]] || fail "a refused report's host was stored"

    # 4. skus, recommend, hosts: their fields, on both SKUs.
    expect 0 "$bin" fleet skus --db "$db" --json
    [[ $(json_field "$out" 'sorted(x["sku"] for x in d)') == "['$sku_b', '$sku_a']" ||
        $(json_field "$out" 'sorted(x["sku"] for x in d)') == "$(python3 -S -c "print(sorted(['$sku_a', '$sku_b']))")" ]] || fail "skus: $(cat "$out")"
    json_field "$out" '[[x[k] for k in ("hosts", "runs", "hugepage_alloc_threads", "confidence", "saving_seconds", "verified_boots", "verification_ratio", "status")] for x in d]' >/dev/null ||
        fail "skus --json lacks a field: $(cat "$out")"
    [[ $(json_field "$out" '[(x["hosts"], x["runs"]) for x in d if x["sku"] == "'"$sku_a"'"][0]') == "(5, 6)" ]] || fail "SKU A hosts/runs: $(cat "$out")"
    expect 0 "$bin" fleet skus --db "$db"
    stdout_matches "^$sku_a  hosts 5  runs 6  "
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku_a" --json
    [[ $(json_field "$out" 'd["sku"], d["hosts"]') == "('$sku_a', 5)" ]] || fail "recommend: $(cat "$out")"
    json_field "$out" 'd["kernel_cmdline"], d["status"], d["predicted_seconds"]' >/dev/null
    cp "$out" "$work/by-sku.json"
    expect 0 "$bin" fleet recommend --db "$db" --host host-b --json
    cmp -s "$out" "$work/by-sku.json" || fail "--host host-b gives another answer than --sku"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku_b"
    stdout_matches '^cmdline    '
    expect_error 2 "no runs of SKU 'x/1n/1t/1g/2048k'" "$bin" fleet recommend --db "$db" --sku x/1n/1t/1g/2048k
    expect_error 2 "--sku: SKU key" "$bin" fleet recommend --db "$db" --sku zen4
    expect_error 2 "give either --sku KEY or --host NAME" "$bin" fleet recommend --db "$db"
    expect_error 2 "no report of host 'nobody-here'" "$bin" fleet recommend --db "$db" --host nobody-here
    expect 0 "$bin" fleet hosts --db "$db" --sku "$sku_a" --json
    [[ $(json_field "$out" '[h["host"] for h in d["hosts"]]') == "['host-a', 'host-b', 'host-c', 'host-d', 'host-e']" ]] || fail "hosts: $(cat "$out")"
    json_field "$out" '[(h["outlier"], h["reasons"], h["runs"]) for h in d["hosts"]]' >/dev/null
    [[ $(json_field "$out" '[h["runs"] for h in d["hosts"]]') == "[2, 1, 1, 1, 1]" ]] || fail "runs per host: $(cat "$out")"

    # 4b. What keeps an answer from being settled, each reason named; the options that change
    # it, each a part of what a kept answer was computed from. The fixture reports were measured
    # in a VM (warning vm), and host-a and host-d stand out by their curves.
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku_a" --json
    [[ $(json_field "$out" 'd["status"] != "settled" and "host_warnings" in [r["code"] for r in d["status_reasons"]]') == True ]] ||
        fail "vm reports settled: $(cat "$out")"
    [[ $(json_field "$out" 'd["status"] == d["status_reasons"][0]["code"]') == True ]] || fail "status is not the first reason: $(cat "$out")"
    [[ $(json_field "$out" 'sorted(h["host"] for h in d["excluded_hosts"])') == "['host-a', 'host-d']" ]] ||
        fail "outliers not left out: $(cat "$out")"
    [[ $(json_field "$out" 'd["pool"]["pages"], d["pool"]["source"]') == "(524288, \"hosts' reports (1 TiB reference)\")" ]] ||
        fail "pool: $(cat "$out")"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku_a"
    stdout_matches '^left out  host-d \(outlier: its curve is slower'
    stdout_matches '^  host_warnings: .*vm \(host-'
    stdout_matches '^pool       524288 pages of 2048 kB, from hosts'"'"' reports'
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku_a" --json --accept-warning vm
    [[ $(json_field "$out" '"host_warnings" in [r["code"] for r in d["status_reasons"]]') == False ]] ||
        fail "--accept-warning vm: $(cat "$out")"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku_a" --json
    [[ $(json_field "$out" '"host_warnings" in [r["code"] for r in d["status_reasons"]]') == True ]] ||
        fail "the answer kept for --accept-warning vm was taken without it: $(cat "$out")"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku_a" --json --include-outliers --boot-pages 4096
    [[ $(json_field "$out" 'd["excluded_hosts"], d["pool"]["pages"], d["pool"]["source"]') == "([], 4096, '--boot-pages')" ]] ||
        fail "--include-outliers --boot-pages 4096: $(cat "$out")"
    expect 0 "$bin" fleet skus --db "$db"
    stdout_matches "^$sku_a  hosts 5  runs 6  .* host_warnings"
    stdout_matches "outliers left out 2$"
    expect 0 "$bin" fleet export --db "$db" --format cmdline
    stdout_empty
    stderr_matches "2 SKUs left out"
    expect_error 2 "--min-confidence: '101' is no percentage" "$bin" fleet skus --db "$db" --min-confidence 101
    expect_error 2 "--min-hosts: give a whole number from 1" "$bin" fleet skus --db "$db" --min-hosts 0
    expect_error 2 "--accept-warning: 'oversubscribed' is not a warning" "$bin" fleet export --db "$db" --accept-warning vm,oversubscribed
    expect_error 2 "--boot-pages: give a number of pages" "$bin" fleet recommend --db "$db" --sku "$sku_a" --boot-pages 0

    # 5. export in each format.
    expect 0 "$bin" fleet export --db "$db" --format csv
    [[ $(head -1 "$out") == "sku,status,decision,hugepage_alloc_threads,kernel_cmdline" ]] || fail "csv header: $(cat "$out")"
    [[ $(wc -l <"$out") == 3 ]] || fail "csv rows: $(cat "$out")"
    grep -q "^$sku_a,[a-z_]*,\(set\|keep_default\),[1-9][0-9]*," "$out" || fail "csv row: $(cat "$out")"
    expect 0 "$bin" fleet export --db "$db"
    [[ $(json_field "$out" 'len(d)') == 2 ]] || fail "json export: $(cat "$out")"
    expect 0 "$bin" fleet export --db "$db" --format cmdline
    while read -r key value; do
        [[ $value =~ ^hugepage_alloc_threads=[1-9][0-9]*$ && ($key == "$sku_a" || $key == "$sku_b") ]] ||
            fail "cmdline export line: $key $value"
    done <"$out"
    expect 0 "$bin" fleet export --db "$db" --format prometheus --out "$work/fleet.prom"
    stdout_empty
    grep -q "^# TYPE hugetune_fleet_recommended_threads gauge$" "$work/fleet.prom" || fail "prom: $(cat "$work/fleet.prom")"
    grep -q "^hugetune_fleet_hosts{sku=\"$sku_a\",status=\"[a-z_]*\"} 5$" "$work/fleet.prom" || fail "prom hosts: $(cat "$work/fleet.prom")"
    # The newest report's time, from the database's newest report per host and SKU.
    local newest
    newest=$(python3 -S -c 'import calendar, json, sys, time
print(max(calendar.timegm(time.strptime(json.load(open(f))["generated_at"], "%Y-%m-%dT%H:%M:%SZ")) for f in sys.argv[1:]))' "$fleet_fixture" "$fleet_fixture2" "$d/host-a-rerun.json")
    grep -q "^hugetune_fleet_latest_report_timestamp_seconds{sku=\"$sku_a\",status=\"[a-z_]*\"} $newest$" "$work/fleet.prom" ||
        fail "prom newest report, expected $newest: $(cat "$work/fleet.prom")"
    expect_error 2 "--out: node_exporter's textfile collector reads only *.prom" "$bin" fleet export --db "$db" --format prometheus --out "$work/fleet.txt"
    expect_error 2 "--format: 'xml' is not one of" "$bin" fleet export --db "$db" --format xml

    # 6. A database of schema 1 (before answers were kept, one verification per run) is brought
    # to the latest on open, its verifications carried over under their blocks' hashes.
    local latest
    latest=$(db_sql "$db" "SELECT version FROM schema_info")
    undo_boot_reported "$db"
    db_sql "$db" "CREATE TABLE verifications_1 (run_id BIGINT PRIMARY KEY REFERENCES runs(id), verified INTEGER NOT NULL, measured_ms DOUBLE PRECISION, threads INTEGER, predicted_ms DOUBLE PRECISION, ratio DOUBLE PRECISION, kernel_release TEXT, boot_id TEXT, block TEXT NOT NULL)" >/dev/null
    db_sql "$db" "INSERT INTO verifications_1 SELECT run_id, verified, measured_ms, threads, predicted_ms, ratio, kernel_release, boot_id, block FROM verifications v WHERE v.id = (SELECT MIN(w.id) FROM verifications w WHERE w.run_id = v.run_id)" >/dev/null
    db_sql "$db" "DROP TABLE verifications" >/dev/null
    db_sql "$db" "ALTER TABLE verifications_1 RENAME TO verifications" >/dev/null
    db_sql "$db" "DROP TABLE sku_answers" >/dev/null
    db_sql "$db" "DROP TABLE run_digests" >/dev/null
    db_sql "$db" "DROP TABLE boot_records" >/dev/null
    db_sql "$db" "DROP TABLE canary_plans" >/dev/null
    # Its SKU keys lack init_on_alloc, which the reports say (off).
    db_sql "$db" "UPDATE skus SET sku_key = REPLACE(REPLACE(sku_key, '/ioa0', ''), '/ioa1', '')" >/dev/null
    db_sql "$db" "ALTER TABLE skus DROP COLUMN init_on_alloc" >/dev/null
    db_sql "$db" "UPDATE schema_info SET version = 1" >/dev/null
    expect 0 "$bin" fleet skus --db "$db"
    [[ $(db_sql "$db" "SELECT version FROM schema_info") == "$latest" ]] || fail "schema 1 was not migrated"
    [[ $(db_sql "$db" "SELECT sku_key FROM skus ORDER BY sku_key" | tr '\n' ' ') == "$(printf '%s\n' "$sku_a" "$sku_b" | sort | tr '\n' ' ')" ]] ||
        fail "the runs were not moved to the keys with init_on_alloc: $(db_sql "$db" "SELECT sku_key FROM skus")"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM skus WHERE init_on_alloc = 0") == 2 ]] || fail "skus.init_on_alloc not filled"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku_a" --json
    [[ $(json_field "$out" 'd["hosts"]') == 5 ]] || fail "SKU A after the migration: $(cat "$out")"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM sku_answers") == 2 ]] || fail "the migrated database keeps no answers"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM verifications") == 1 ]] || fail "verifications lost or gained in the migration"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM verifications WHERE block_hash LIKE 'carried%'") == 0 ]] ||
        fail "a carried verification kept its placeholder key"
    # The carried block has the key its ingest gives it; the other boot is added beside it.
    expect 0 "$bin" fleet ingest --db "$db" --json "$work/verified.json" "$work/verified2.json"
    [[ $(json_field "$out" 'd["skipped"], d["verification_added"]') == "(['$work/verified.json'], ['$work/verified2.json'])" ]] ||
        fail "after the migration: $(cat "$out")"

    # 7. Answers kept (while the SKUs are small: every answer computed anew is a whole fit).
    answers_kept_suite "$db" "$sku_a"
    digests_suite "$db" "$sku_a"

    # 8. Two ingests of the same 30 new reports at once: both finish, each report stored once.
    mkdir "$work/batch"
    make_reports "$fleet_fixture" "$work/batch" batch- 30
    "$bin" fleet ingest --db "$db" --json "$work/batch" >"$work/one.json" 2>&1 &
    local p1=$!
    "$bin" fleet ingest --db "$db" --json "$work/batch" >"$work/two.json" 2>&1 &
    local p2=$!
    wait "$p1" || fail "first concurrent ingest failed: $(cat "$work/one.json")"
    wait "$p2" || fail "second concurrent ingest failed: $(cat "$work/two.json")"
    [[ $(($(json_field "$work/one.json" 'len(d["added"])') + $(json_field "$work/two.json" 'len(d["added"])'))) == 30 ]] ||
        fail "concurrent ingests added other than 30: $(cat "$work/one.json" "$work/two.json")"
    [[ $(run_count "$db") == 38 ]] || fail "after concurrent ingests: $(run_count "$db") runs, expected 38"

    # 9. SIGKILL mid-ingest: the batch is stored whole or not at all.
    mkdir "$work/big"
    make_reports "$fleet_fixture" "$work/big" kill- 200
    "$bin" fleet ingest --db "$db" "$work/big" >/dev/null 2>&1 &
    local pk=$!
    sleep 0.3
    kill -KILL "$pk" 2>/dev/null || true
    wait "$pk" 2>/dev/null || true
    local n
    n=$(run_count "$db")
    [[ $n == 38 || $n == 238 ]] || fail "SIGKILL left $n runs: part of a batch stored"
    expect 0 "$bin" fleet ingest --db "$db" --json "$work/big"
    [[ $(run_count "$db") == 238 ]] || fail "after the killed batch was ingested again: $(run_count "$db") runs"

    # 10. A database written by a newer hugetune is refused and left as it is.
    db_sql "$db" "UPDATE schema_info SET version = 99" >/dev/null
    expect_error 2 "schema version 99 was written by a newer hugetune" "$bin" fleet skus --db "$db"
    expect_error 2 "schema version 99" "$bin" fleet ingest --db "$db" "$work/good.json"
    [[ $(db_sql "$db" "SELECT version FROM schema_info") == 99 && $(run_count "$db") == 238 ]] ||
        fail "the newer database was altered"
    db_sql "$db" "UPDATE schema_info SET version = $latest" >/dev/null

    # 11. Runs listed, stored blocks the reader refuses, data forgotten.
    runs_suite "$db" "$sku_b"
    forget_suite "$db"

    # 12. init_on_alloc separates answers: host-b measured again with it on is in another SKU
    # of the same hardware, and `fleet hosts` says so on both.
    python3 -S - "$fleet_fixture" "$work/ioa-on.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["hostname"] = "host-b"
d["generated_at"] = "2026-12-02T00:00:00Z"
d["kernel"]["init_on_alloc"] = True
json.dump(d, open(sys.argv[2], "w"))
PY
    [[ $sku_a == */ioa0 ]] || fail "the fixture's key does not say init_on_alloc off: $sku_a"
    local sku_on=${sku_a%/ioa0}/ioa1
    expect 0 "$bin" fleet ingest --db "$db" "$work/ioa-on.json"
    expect 0 "$bin" fleet skus --db "$db" --json
    [[ $(json_field "$out" '[x["sku_fields"]["init_on_alloc"] for x in d if x["sku"] == "'"$sku_on"'"]') == "[True]" ]] ||
        fail "no SKU $sku_on: $(cat "$out")"
    expect 0 "$bin" fleet hosts --db "$db" --sku "$sku_a" --json
    [[ $(json_field "$out" 'd["other_init_on_alloc"]["sku"], d["other_init_on_alloc"]["hosts"]') == "('$sku_on', ['host-b'])" ]] ||
        fail "hosts of the other init_on_alloc: $(cat "$out")"
    [[ $(json_field "$out" '[h["host"] for h in d["hosts"] if h["also_in_other_init_on_alloc"]]') == "['host-b']" ]] ||
        fail "host-b not flagged: $(cat "$out")"
    expect 0 "$bin" fleet hosts --db "$db" --sku "$sku_on"
    stdout_matches '^host-b .*also measured with init_on_alloc off'
    stderr_matches "note: [0-9]+ hosts? of the same hardware run with init_on_alloc off"
    expect 0 "$bin" fleet recommend --db "$db" --host host-b --json
    [[ $(json_field "$out" 'd["sku"]') == "$sku_on" ]] || fail "host-b's latest SKU: $(cat "$out")"
    expect_error 2 "init_on_alloc 'ioa2' must be ioa0 or ioa1" "$bin" fleet recommend --db "$db" --sku "${sku_a%/ioa0}/ioa2"

    # 13. A bad report in the middle of a batch refuses only itself: those before and after it are
    # stored, each read, checked and stored in turn.
    mkdir "$work/middle"
    make_reports "$fleet_fixture" "$work/middle" middle- 5
    head -c 3000 "$work/middle/middle-3.json" >"$work/middle/middle-3.cut" &&
        mv "$work/middle/middle-3.cut" "$work/middle/middle-3.json"
    local before
    before=$(run_count "$db")
    expect 2 "$bin" fleet ingest --db "$db" --json "$work/middle"
    [[ $(json_field "$out" '[f.rsplit("/", 1)[1] for f in d["added"]], [(r["file"].rsplit("/", 1)[1], r["reason"][:9]) for r in d["refused"]]') == \
        "(['middle-1.json', 'middle-2.json', 'middle-4.json', 'middle-5.json'], [('middle-3.json', 'truncated')])" ]] ||
        fail "a bad report mid-batch: $(cat "$out")"
    stderr_has "refused 1 of 5 reports"
    [[ $(run_count "$db") == $((before + 4)) ]] || fail "mid-batch refusal: $(run_count "$db") runs, expected $((before + 4))"
    db_sql "$db" "SELECT COUNT(*) FROM hosts WHERE hostname = 'middle-3'" | grep -x 0 >/dev/null ||
        fail "the refused report's host was stored"
}

# runs_suite DB SKU: `fleet runs` lists every run in host then time order; a stored verification
# the reader refuses makes its SKU's row an error until it is forgotten.
runs_suite() {
    local db=$1 sku=$2
    expect 0 "$bin" fleet runs --db "$db" --json
    [[ $(json_field "$out" 'len(d)') == "$(run_count "$db")" ]] || fail "runs lists $(json_field "$out" 'len(d)') of $(run_count "$db")"
    json_field "$out" '[[r[k] for k in ("run_key", "host", "sku", "generated_at", "tool_version", "kernel_release", "warnings", "verifications")] for r in d]' >/dev/null ||
        fail "runs --json lacks a field"
    [[ $(json_field "$out" '[(r["host"], r["generated_at"]) for r in d] == sorted((r["host"], r["generated_at"]) for r in d)') == True ]] ||
        fail "runs are not in host then time order"
    [[ $(json_field "$out" '[[v[k] for k in ("key", "boot_id", "verified", "ratio")] for r in d if r["host"] == "host-b" for v in r["verifications"]][0][2]') == False ]] ||
        fail "host-b's verification: $(cat "$out")"
    expect 0 "$bin" fleet runs --db "$db" --host host-a
    [[ $(wc -l <"$out") == 2 ]] || fail "runs --host host-a: $(cat "$out")"
    # A name is selected as DNS compares it, as names are stored (docs/fleet.md "The host-name rule").
    expect 0 "$bin" fleet runs --db "$db" --host HOST-A.
    [[ $(wc -l <"$out") == 2 ]] || fail "runs --host HOST-A.: $(cat "$out")"
    stdout_matches "^host-a  [0-9a-f]{16}  [^ ]+  [0-9T:Z-]+  tool [^ ]+  kernel [^ ]+  warnings "
    expect 0 "$bin" fleet runs --db "$db" --host host-b
    stdout_matches "^  verification [0-9a-f]{16}:[0-9a-f]{16}  boot -  not verified  measured/predicted -$"
    expect 0 "$bin" fleet runs --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" '[r["host"] for r in d]') == "['other-1']" ]] || fail "runs --sku: $(cat "$out")"
    expect_error 2 "--host: no runs of host 'nobody-here'" "$bin" fleet runs --db "$db" --host nobody-here
    expect_error 2 "--sku: no runs of SKU 'x/1n/1t/1g/2048k'" "$bin" fleet runs --db "$db" --sku x/1n/1t/1g/2048k
    expect_error 2 "give --host NAME or --sku KEY, not both" "$bin" fleet runs --db "$db" --host a --sku "$sku"

    # A block stored before this hugetune's reader grew stricter (written here with SQL): the
    # SKU's row says why it has no answer, the others stand, recommend fails (exit 1).
    local run_id
    run_id=$(db_sql "$db" "SELECT r.id FROM runs r JOIN hosts h ON h.id = r.host_id WHERE h.hostname = 'other-1'")
    db_sql "$db" "INSERT INTO verifications (run_id, block_hash, verified, ratio, block) VALUES ($run_id, '00000000000000aa', 1, 1e300, '{\"verified\": true, \"ratio\": 1e300, \"problems\": []}')" >/dev/null
    expect 0 "$bin" fleet skus --db "$db" --json
    [[ $(json_field "$out" '[x.get("error", "")[:0] + str("error" in x) for x in d if x["sku"] == "'"$sku"'"][0]') == True ]] ||
        fail "the SKU of a refused block has an answer: $(cat "$out")"
    json_field "$out" '[x["error"] for x in d if x["sku"] == "'"$sku"'"][0]' >"$work/refused-block.txt"
    grep -qF "verification.ratio: " "$work/refused-block.txt" && grep -qF "fleet forget --verification " "$work/refused-block.txt" ||
        fail "the error does not name the field and the fix: $(cat "$work/refused-block.txt")"
    [[ $(json_field "$out" 'len([x for x in d if "error" not in x])') == 1 ]] || fail "the other SKU lost its answer: $(cat "$out")"
    expect 0 "$bin" fleet skus --db "$db"
    stdout_matches "^$sku  no answer: SKU $sku: verification [0-9a-f]{16}:00000000000000aa of host other-1: verification.ratio: "
    expect_error 1 "verification.ratio: " "$bin" fleet recommend --db "$db" --sku "$sku"
    # One that is not JSON: the same, named as damage.
    db_sql "$db" "UPDATE verifications SET block = 'not json' WHERE block_hash = '00000000000000aa'" >/dev/null
    expect_error 1 "is not JSON; the database is damaged" "$bin" fleet recommend --db "$db" --sku "$sku"
    # Forgotten by the key `fleet runs` prints: the SKU has its answer again.
    expect 0 "$bin" fleet runs --db "$db" --host other-1 --json
    local key
    key=$(json_field "$out" 'd[0]["verifications"][0]["key"]')
    [[ $key == *:00000000000000aa ]] || fail "runs lists the stored block as $key"
    expect 0 "$bin" fleet forget --db "$db" --verification "$key"
    stdout_has "forgot 0 runs, 1 verification, 0 hosts, 0 SKUs"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku"
}

# forget_suite DB: `fleet forget` by host, date, kernel, tool version and verification; a dry
# run changes nothing; hosts and SKUs left without runs and the touched SKUs' answers go.
forget_suite() {
    local db=$1 f=$work/forget
    mkdir -p "$f"
    make_report "$fleet_fixture" "$f/fg-1-old.json" fg-1 2026-01-15T08:00:00Z 1002 9.9.9-forget
    make_report "$fleet_fixture" "$f/fg-1-new.json" fg-1 2026-06-15T08:00:00Z 1002 9.9.9-forget
    make_report "$fleet_fixture" "$f/fg-2.json" fg-2 2026-06-15T08:00:00Z 1002 9.9.9-forget
    make_report "$fleet_fixture" "$f/fg-3.json" fg-3 2026-06-15T08:00:00Z 1002 9.9.9-other
    expect 0 "$bin" fleet ingest --db "$db" "$f"
    local sku runs
    sku=$(db_sql "$db" "SELECT sku_key FROM skus WHERE microarch = 'intel-6-1002-0'")
    runs=$(run_count "$db")
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku"
    local answers="SELECT COUNT(*) FROM sku_answers a JOIN skus s ON s.id = a.sku_id WHERE s.sku_key = '$sku'"
    [[ $(db_sql "$db" "$answers") == 1 ]] || fail "no answer kept for $sku"

    # Usage: a selector is required, --verification stands alone, values are checked.
    expect_error 2 "fleet forget: give what to forget" "$bin" fleet forget --db "$db"
    expect_error 2 "fleet forget: give what to forget" "$bin" fleet forget --db "$db" --dry-run
    expect_error 2 "--verification: forgets one verification alone" "$bin" fleet forget --db "$db" --host fg-1 --verification 0123456789abcdef:x
    expect_error 2 "--before: '2026-13-01' is not a date or UTC time" "$bin" fleet forget --db "$db" --before 2026-13-01
    expect_error 2 "--verification: 'nokey' is not a verification key" "$bin" fleet forget --db "$db" --verification nokey
    expect_error 2 "--verification: no verification '0123456789abcdef:x'" "$bin" fleet forget --db "$db" --verification 0123456789abcdef:x
    expect_error 2 "--host: no host 'nobody-here'" "$bin" fleet forget --db "$db" --host nobody-here
    [[ $(run_count "$db") == "$runs" ]] || fail "a refused forget changed the runs"
    expect 0 "$bin" fleet forget --db "$db" --host FG-1. --dry-run --json
    [[ $(json_field "$out" 'sorted(set(r["host"] for r in d["runs"]))') == "['fg-1']" ]] ||
        fail "forget --host FG-1.: $(cat "$out")"

    # A dry run names what would go and changes nothing.
    expect 0 "$bin" fleet forget --db "$db" --before 2026-03-01 --dry-run --json
    [[ $(json_field "$out" 'd["dry_run"], [r["host"] for r in d["runs"]], d["hosts"], d["skus"], d["answers_dropped"]') == "(True, ['fg-1'], [], [], ['$sku'])" ]] ||
        fail "dry run --before: $(cat "$out")"
    expect 0 "$bin" fleet forget --db "$db" --before 2026-03-01 --dry-run
    stdout_has "would forget 1 run, 0 verifications, 0 hosts, 0 SKUs; kept answers dropped 1 (dry run: nothing changed)"
    stdout_matches "^run [0-9a-f]{16}  fg-1  $sku  2026-01-15T08:00:00Z$"
    [[ $(run_count "$db") == "$runs" && $(db_sql "$db" "$answers") == 1 ]] || fail "a dry run changed the database"
    # Runs before a date: the host keeps its newer run, the SKU's kept answer goes.
    expect 0 "$bin" fleet forget --db "$db" --before 2026-03-01
    stdout_has "forgot 1 run, 0 verifications, 0 hosts, 0 SKUs; kept answers dropped 1"
    [[ $(run_count "$db") == $((runs - 1)) && $(db_sql "$db" "$answers") == 0 ]] || fail "--before: runs $(run_count "$db"), answers $(db_sql "$db" "$answers")"
    # Selectors together: runs that match all of them.
    expect 0 "$bin" fleet forget --db "$db" --kernel 9.9.9-forget --tool-version no-such-version --json
    [[ $(json_field "$out" 'len(d["runs"])') == 0 && $(run_count "$db") == $((runs - 1)) ]] || fail "selectors are not combined: $(cat "$out")"
    # A host and all its runs.
    expect 0 "$bin" fleet forget --db "$db" --host fg-2 --json
    [[ $(json_field "$out" 'd["dry_run"], len(d["runs"]), d["hosts"], d["skus"]') == "(False, 1, ['fg-2'], [])" ]] || fail "--host: $(cat "$out")"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM hosts WHERE hostname = 'fg-2'") == 0 ]] || fail "the forgotten host stayed"
    # A kernel: fg-1's last run goes, and with it the host.
    expect 0 "$bin" fleet forget --db "$db" --kernel 9.9.9-forget
    stdout_has "hosts: fg-1"
    # A tool version: the SKU's last run, host and the SKU itself. First with the SKU's removal
    # refused by a trigger: the whole forget is rolled back, its runs and host deleted before
    # included.
    local tool
    tool=$(json_field "$f/fg-3.json" 'd["tool"]["version"]')
    if [[ $db == postgresql://* ]]; then
        db_sql "$db" "CREATE FUNCTION keep_skus() RETURNS trigger LANGUAGE plpgsql AS \$\$BEGIN RAISE EXCEPTION 'kept by the test'; END\$\$" >/dev/null
        db_sql "$db" "CREATE TRIGGER keep_skus BEFORE DELETE ON skus FOR EACH ROW EXECUTE FUNCTION keep_skus()" >/dev/null
    else
        db_sql "$db" "CREATE TRIGGER keep_skus BEFORE DELETE ON skus BEGIN SELECT RAISE(ABORT, 'kept by the test'); END" >/dev/null
    fi
    expect_error 1 "kept by the test" "$bin" fleet forget --db "$db" --host fg-3 --tool-version "$tool"
    [[ $(run_count "$db") == $((runs - 3)) && $(db_sql "$db" "SELECT COUNT(*) FROM hosts WHERE hostname = 'fg-3'") == 1 ]] ||
        fail "a failed forget removed part of its selection"
    if [[ $db == postgresql://* ]]; then
        db_sql "$db" "DROP TRIGGER keep_skus ON skus" >/dev/null
    else
        db_sql "$db" "DROP TRIGGER keep_skus" >/dev/null
    fi
    expect 0 "$bin" fleet forget --db "$db" --host fg-3 --tool-version "$tool" --json
    [[ $(json_field "$out" 'd["hosts"], d["skus"]') == "(['fg-3'], ['$sku'])" ]] || fail "--tool-version: $(cat "$out")"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM skus WHERE sku_key = '$sku'") == 0 && $(run_count "$db") == $((runs - 4)) ]] ||
        fail "the SKU left without runs stayed"
    expect_error 2 "no runs of SKU '$sku'" "$bin" fleet recommend --db "$db" --sku "$sku"

    # One verification: by run key and boot id when that names one block.
    make_report "$fleet_fixture" "$f/fg-4.json" fg-4 2026-06-15T08:00:00Z
    python3 -S -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = {"verified": False, "measured_ms": 900, "threads": 2, "boot_id": "boot-one", "problems": [{"code": "not_applied", "message": "a test"}]}
d["verification"] = v; json.dump(d, open(sys.argv[2], "w"))
v["boot_id"] = "boot-two"; json.dump(d, open(sys.argv[3], "w"))' "$f/fg-4.json" "$f/fg-4-v1.json" "$f/fg-4-v2.json"
    expect 0 "$bin" fleet ingest --db "$db" "$f/fg-4-v1.json" "$f/fg-4-v2.json"
    expect 0 "$bin" fleet runs --db "$db" --host fg-4 --json
    local run_key
    run_key=$(json_field "$out" 'd[0]["run_key"]')
    [[ $(json_field "$out" '[v["boot_id"] for v in d[0]["verifications"]]') == "['boot-one', 'boot-two']" ]] || fail "fg-4: $(cat "$out")"
    expect 0 "$bin" fleet forget --db "$db" --verification "$run_key:boot-one" --dry-run
    stdout_has "would forget 0 runs, 1 verification,"
    expect 0 "$bin" fleet forget --db "$db" --verification "$run_key:boot-one" --json
    [[ $(json_field "$out" '[v["boot_id"] for v in d["verifications"]]') == "['boot-one']" ]] || fail "forget --verification: $(cat "$out")"
    expect 0 "$bin" fleet runs --db "$db" --host fg-4 --json
    [[ $(json_field "$out" '[v["boot_id"] for v in d[0]["verifications"]]') == "['boot-two']" ]] || fail "after forget --verification: $(cat "$out")"
    expect 0 "$bin" fleet forget --db "$db" --host fg-4
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM verifications v JOIN runs r ON r.id = v.run_id JOIN hosts h ON h.id = r.host_id WHERE h.hostname = 'fg-4'") == 0 &&
        $(run_count "$db") == $((runs - 4)) ]] || fail "the host's verifications stayed"
}

# answers_kept_suite DB SKU: a SKU's answer is kept in the database and taken while the binary,
# its options and the SKU's runs are the same; a new run or a damaged answer computes it anew.
answers_kept_suite() {
    local db=$1 sku=$2
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    cp "$out" "$work/fresh.json"
    local sku_id
    sku_id=$(db_sql "$db" "SELECT id FROM skus WHERE sku_key = '$sku'")
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM sku_answers WHERE sku_id = $sku_id") == 1 ]] ||
        fail "no answer kept for $sku"
    [[ $(db_sql "$db" "SELECT inputs FROM sku_answers WHERE sku_id = $sku_id") =~ ^tool\ [0-9a-f]{16}\;\ seed\ 1,\ resamples\ 2000,.*\;\ runs\ [0-9a-f]{16}$ ]] ||
        fail "inputs: $(db_sql "$db" "SELECT inputs FROM sku_answers WHERE sku_id = $sku_id")"
    # The tool is the first 64 bits of the build ID the linker wrote into the binary.
    local build_id
    build_id=$(readelf -n "$bin" | sed -n 's/^ *Build ID: \([0-9a-f]*\)$/\1/p')
    [[ -n $build_id ]] || fail "readelf shows no build ID in $bin"
    [[ $(db_sql "$db" "SELECT inputs FROM sku_answers WHERE sku_id = $sku_id") == "tool ${build_id:0:16}; "* ]] ||
        fail "the kept answer's tool is not the build ID ${build_id:0:16}: $(db_sql "$db" "SELECT inputs FROM sku_answers WHERE sku_id = $sku_id")"
    # Taken from the database: an answer edited there (same inputs) is what the commands print.
    db_sql "$db" "UPDATE sku_answers SET answer = REPLACE(answer, '\"status_reason\":\"', '\"status_reason\":\"KEPT ') WHERE sku_id = $sku_id" >/dev/null
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" 'd["status_reason"][:4]') == KEPT ]] || fail "the kept answer was not taken: $(cat "$out")"
    expect 0 "$bin" fleet skus --db "$db" --json
    expect 0 "$bin" fleet export --db "$db" --format json
    [[ $(json_field "$out" '[x["status_reason"][:4] for x in d if x["sku"] == "'"$sku"'"][0]') == KEPT ]] ||
        fail "export did not take the kept answer: $(cat "$out")"
    # The fit is kept apart from the headline (its own column, nearly all of the kept bytes), as
    # {} in the headline; the commands that print only the headline fields do not read it: with
    # the fit made unreadable they still take the kept answer, and those that print the fit
    # compute the answer anew.
    [[ $(db_sql "$db" "SELECT CASE WHEN answer LIKE '%\"recommendation\":{}%' AND fit LIKE '{%' THEN 1 ELSE 0 END FROM sku_answers WHERE sku_id = $sku_id") == 1 ]] ||
        fail "the kept headline holds its fit, or the fit is not kept apart"
    db_sql "$db" "UPDATE sku_answers SET answer = REPLACE(answer, '\"reason\":\"', '\"reason\":\"KEPT ') WHERE sku_id = $sku_id" >/dev/null
    db_sql "$db" "UPDATE sku_answers SET fit = 'unread' WHERE sku_id = $sku_id" >/dev/null
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku"
    stdout_has "KEPT"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" 'd["status_reason"][:4]') != KEPT ]] || fail "a kept answer whose fit is damaged was taken whole"
    db_sql "$db" "UPDATE sku_answers SET answer = REPLACE(answer, '\"status_reason\":\"', '\"status_reason\":\"KEPT ') WHERE sku_id = $sku_id" >/dev/null
    # A new verification of a run verified before: computed anew.
    cp "$work/verified.json" "$work/verified3.json"
    "$bin" verify --log "$src/tests/fixtures/boot/logs/dmesg-6.15-default-threads.log" \
        --cmdline "$work/cmdline" --report "$work/verified3.json" >/dev/null 2>&1 || true
    expect 0 "$bin" fleet ingest --db "$db" --json "$work/verified3.json"
    [[ $(json_field "$out" 'len(d["verification_added"])') == 1 ]] || fail "third verification: $(cat "$out")"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" 'd["status_reason"][:4]') != KEPT ]] || fail "a new verification did not compute the answer anew"
    db_sql "$db" "UPDATE sku_answers SET answer = REPLACE(answer, '\"status_reason\":\"', '\"status_reason\":\"KEPT ') WHERE sku_id = $sku_id" >/dev/null
    # A new run of the SKU: computed anew, with one more host, and kept again.
    make_report "$fleet_fixture" "$work/kept-new.json" kept-new-host
    expect 0 "$bin" fleet ingest --db "$db" "$work/kept-new.json"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" 'd["status_reason"][:4]') != KEPT ]] || fail "a new run did not compute the answer anew"
    [[ $(json_field "$out" 'd["hosts"]') == $(($(json_field "$work/fresh.json" 'd["hosts"]') + 1)) ]] ||
        fail "hosts after the new run: $(cat "$out")"
    cp "$out" "$work/fresh.json"
    # A damaged kept answer is computed anew, not an error.
    db_sql "$db" "UPDATE sku_answers SET answer = 'not json' WHERE sku_id = $sku_id" >/dev/null
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    cmp -s "$out" "$work/fresh.json" || fail "the damaged answer was not computed again: $(cat "$out")"
    [[ $(db_sql "$db" "SELECT answer FROM sku_answers WHERE sku_id = $sku_id") != "not json" ]] ||
        fail "the recomputed answer was not kept"
}

# digests_suite DB SKU: every run keeps its digest (docs/fleet.md "Run digests"); the SKU's answer
# from the digests is the answer from the reports, byte for byte; a database of before the
# digests gets one for every run when it is opened.
digests_suite() {
    local db=$1 sku=$2 runs before
    runs=$(run_count "$db")
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM run_digests") == "$runs" ]] ||
        fail "digests: $(db_sql "$db" "SELECT COUNT(*) FROM run_digests") of $runs runs"
    db_sql "$db" "DELETE FROM sku_answers" >/dev/null
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    cp "$out" "$work/from-digests.json"
    db_sql "$db" "DELETE FROM run_digests" >/dev/null
    db_sql "$db" "DELETE FROM sku_answers" >/dev/null
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    cmp -s "$out" "$work/from-digests.json" ||
        fail "the answer from reports is not the answer from digests: $(diff "$out" "$work/from-digests.json" | head -5)"
    # A database of before the digests (version 6; 7 adds them): each run gets its digest
    # when it is opened.
    before=$(db_sql "$db" "SELECT version FROM schema_info")
    undo_boot_reported "$db"
    db_sql "$db" "DROP TABLE run_digests" >/dev/null
    db_sql "$db" "DROP TABLE boot_records" >/dev/null
    db_sql "$db" "DROP TABLE canary_plans" >/dev/null
    db_sql "$db" "ALTER TABLE sku_answers DROP COLUMN fit" >/dev/null  # migration 17's
    db_sql "$db" "UPDATE schema_info SET version = 6" >/dev/null
    db_sql "$db" "DELETE FROM sku_answers" >/dev/null
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    cmp -s "$out" "$work/from-digests.json" || fail "the answer after the migration differs"
    [[ $(db_sql "$db" "SELECT version FROM schema_info") == "$before" ]] || fail "not migrated"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM run_digests") == "$runs" ]] ||
        fail "the migration wrote $(db_sql "$db" "SELECT COUNT(*) FROM run_digests") digests of $runs runs"
    # A digest that is not one (damaged, another version's) is passed over for the report.
    db_sql "$db" "UPDATE run_digests SET digest = 'damaged' WHERE run_id = (SELECT MIN(run_id) FROM run_digests)" >/dev/null
    db_sql "$db" "DELETE FROM sku_answers" >/dev/null
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    cmp -s "$out" "$work/from-digests.json" || fail "a damaged digest changed the answer"
}

# same_machine_of DB SKU: each host of the SKU with the other names its runs were stored under,
# as python prints the list of (host, [names]), from `fleet hosts --json`.
same_machine_of() {
    expect 0 "$bin" fleet hosts --db "$1" --sku "$2" --json
    json_field "$out" '[(h["host"], [m["host"] for m in h["same_machine"]]) for h in d["hosts"]]'
}

# The host-name rule (docs/fleet.md): names compared as DNS compares them, a short name and its
# one FQDN one host, one machine's samples under two names counted once, names the exports
# cannot carry refused, and rows of an older database that differ only in case made one.
host_names_suite() {
    local db=$1 d=$work/names
    mkdir -p "$d"
    local sku old_sku
    old_sku=$(sku_key_of "$fleet_fixture")
    sku=intel-6-1003-0/${old_sku#*/}
    # One report saved as web-17, WEB-17 and web-17.example.com is one host: never three for
    # --min-hosts 3. WEB-17 is web-17's report of the same time with other content: a conflict.
    rename_report "$fleet_fixture" "$d/1.json" web-17 1003
    rename_report "$fleet_fixture" "$d/2.json" WEB-17 1003
    rename_report "$fleet_fixture" "$d/3.json" web-17.example.com 1003
    # A name Ansible would read as a pattern: refused, the rest of the batch stored.
    rename_report "$fleet_fixture" "$d/4.json" "[list]" 1003
    make_report "$fleet_fixture" "$d/5.json" other-machine "" 1003
    expect 2 "$bin" fleet ingest --db "$db" --json "$d"
    [[ $(json_field "$out" 'sorted(d["added"]), sorted(r["file"] for r in d["refused"])') == \
        "(['$d/1.json', '$d/3.json', '$d/5.json'], ['$d/2.json', '$d/4.json'])" ]] ||
        fail "names: $(cat "$out")"
    stderr_has "refused $d/4.json: host name '[list]' is not a DNS host name: it holds '[', and a host name holds only letters, digits, '-', '_' and dots; give the host such a name (hostnamectl set-hostname)"
    [[ $(db_sql "$db" "SELECT hostname FROM hosts WHERE hostname IN
        ('web-17', 'WEB-17', 'web-17.example.com', '[list]') ORDER BY hostname" | tr '\n' ' ') == "web-17 web-17.example.com " ]] ||
        fail "hosts stored: $(db_sql "$db" "SELECT hostname FROM hosts")"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --min-hosts 3 --accept-warning vm,low_confidence,poor_fit,failed_resamples --json
    [[ $(json_field "$out" 'd["hosts"], d["status_reasons"][0]["code"]') == "(2, 'needs_more_hosts')" ]] ||
        fail "one machine counted as more: $(cat "$out")"
    # fleet hosts names the other names, in text and JSON.
    [[ $(same_machine_of "$db" "$sku") == \
        "[('other-machine', []), ('web-17.example.com', ['web-17'])]" ]] || fail "hosts: $(cat "$out")"
    expect 0 "$bin" fleet hosts --db "$db" --sku "$sku"
    stdout_matches "^web-17\.example\.com .*; same machine as web-17 \(its short name"

    # Identical samples under two unrelated names: flagged, counted once.
    rename_report "$fleet_fixture" "$d/6.json" zulu 1003
    expect 0 "$bin" fleet ingest --db "$db" "$d/6.json"
    [[ $(same_machine_of "$db" "$sku") == \
        "[('other-machine', []), ('web-17.example.com', ['web-17', 'zulu'])]" ]] || fail "same samples: $(cat "$out")"
    expect 0 "$bin" fleet hosts --db "$db" --sku "$sku"
    stdout_has "same machine as zulu (its runs carry the same samples, bit for bit"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" 'd["hosts"]') == 2 ]] || fail "same samples counted twice: $(cat "$out")"

    # One report under three names, its samples nudged by a part in 10^12 and in 10^9: one
    # machine, never three for --min-hosts 3. A machine of its own (make_report's samples differ
    # by parts in 1,000, as two machines' do) is a second host.
    local nudged_sku=intel-6-1004-0/${old_sku#*/}
    rename_report "$fleet_fixture" "$d/nudge-1.json" nudge-a 1004
    nudge_report "$d/nudge-1.json" "$d/nudge-2.json" nudge-b 1e-12
    nudge_report "$d/nudge-1.json" "$d/nudge-3.json" nudge-c -1e-9
    make_report "$fleet_fixture" "$d/nudge-4.json" own-machine "" 1004
    expect 0 "$bin" fleet ingest --db "$db" "$d"/nudge-*.json
    expect 0 "$bin" fleet recommend --db "$db" --sku "$nudged_sku" --min-hosts 3 --accept-warning vm,low_confidence,poor_fit,failed_resamples --json
    [[ $(json_field "$out" 'd["hosts"], d["runs"], d["status_reasons"][0]["code"]') == "(2, 2, 'needs_more_hosts')" ]] ||
        fail "a nudged copy counted as a host: $(cat "$out")"
    [[ $(same_machine_of "$db" "$nudged_sku") == \
        "[('nudge-a', ['nudge-b', 'nudge-c']), ('own-machine', [])]" ]] || fail "nudged hosts: $(cat "$out")"
    expect 0 "$bin" fleet hosts --db "$db" --sku "$nudged_sku"
    stdout_has "same machine as nudge-c (its runs carry the same samples, each within a part in a million"

    # A database written before the rule, with WEB-17 and web-17 rows: one host once opened.
    local old=$work/names-old.db
    rename_report "$fleet_fixture" "$d/old-1.json" web-17
    make_report "$fleet_fixture" "$d/old-2.json" old-17 2026-01-01T00:00:00Z
    expect 0 "$bin" fleet ingest --db "$old" "$d/old-1.json" "$d/old-2.json"
    db_sql "$old" "UPDATE hosts SET hostname = 'WEB-17.' WHERE hostname = 'old-17'" >/dev/null
    # Version 5, before the host-name rule (6) and the digests (7).
    undo_boot_reported "$old"
    db_sql "$old" "DROP TABLE run_digests" >/dev/null
    db_sql "$old" "DROP TABLE boot_records" >/dev/null
    db_sql "$old" "DROP TABLE canary_plans" >/dev/null
    db_sql "$old" "ALTER TABLE sku_answers DROP COLUMN fit" >/dev/null  # migration 17's
    db_sql "$old" "UPDATE schema_info SET version = 5" >/dev/null
    expect 0 "$bin" fleet runs --db "$old" --json
    [[ $(json_field "$out" 'sorted(set(r["host"] for r in d))') == "['web-17']" ]] ||
        fail "old rows not one host: $(cat "$out")"
    [[ $(db_sql "$old" "SELECT COUNT(*) FROM hosts") == 1 ]] || fail "host rows left"
    expect 0 "$bin" fleet recommend --db "$old" --sku "$old_sku" --json
    [[ $(json_field "$out" 'd["hosts"], d["runs"]') == "(1, 2)" ]] || fail "old db: $(cat "$out")"
}

# with_identity REPORT SOURCE [VALUE]: REPORT's host block given the identity a probe writes
# that read VALUE from SOURCE (docs/fleet.md "The host-name rule": SHA-256 of hugetune's prefix,
# the source's name and the value in lower case); SOURCE none: no identity, and why.
with_identity() {
    python3 -S - "$@" <<'PY'
import hashlib, json, sys
path, source = sys.argv[1:3]
doc = json.load(open(path))
if source == "none":
    identity = {"source": "none", "reason": "/etc/machine-id is absent"}
else:
    text = "hugetune hardware identity 1\n%s\n%s" % (source, sys.argv[3].lower())
    identity = {"source": source, "sha256": hashlib.sha256(text.encode()).hexdigest()}
doc["host"]["hardware_identity"] = identity
json.dump(doc, open(path, "w"), indent=1)
PY
}

# The hardware identity (docs/fleet.md "The host-name rule"): a name whose reports carry two
# machines' identities is two hosts, and `fleet hosts` names the run where it changed; another
# machine's report renamed to a host's name leaves that host; an identity the reader refuses is
# refused by ingest; a database of version 15 gets the identities into its digests when opened.
hardware_identity_suite() {
    local db=$1 d=$work/hwid sku old_sku
    mkdir -p "$d"
    old_sku=$(sku_key_of "$fleet_fixture")
    sku=intel-6-1004-0/${old_sku#*/}
    # hw-a's board replaced between its two runs (the second one's samples are another
    # machine's); hw-b's report renamed to hw-c, whose own runs carry another identity; hw-d's
    # probe found no identity.
    make_report "$fleet_fixture" "$d/a1.json" hw-a 2026-12-01T10:00:00Z 1004
    make_report "$fleet_fixture" "$d/a2.json" hw-a-board 2026-12-02T10:00:00Z 1004
    rename_report "$d/a2.json" "$d/a2.json" hw-a
    make_report "$fleet_fixture" "$d/b.json" hw-b 2026-12-03T11:00:00Z 1004
    make_report "$fleet_fixture" "$d/c.json" hw-c 2026-12-01T12:00:00Z 1004
    make_report "$fleet_fixture" "$d/d.json" hw-d 2026-12-01T13:00:00Z 1004
    with_identity "$d/a1.json" machine_id 0a000000000000000000000000000001
    with_identity "$d/a2.json" machine_id 0a000000000000000000000000000002
    with_identity "$d/b.json" dmi_product_uuid 4C4C4544-0051-3010-8052-B4C04F4B4E32
    rename_report "$d/b.json" "$d/b-as-c.json" hw-c
    with_identity "$d/c.json" machine_id 0c000000000000000000000000000001
    with_identity "$d/d.json" none
    expect 0 "$bin" fleet ingest --db "$db" "$d/a1.json" "$d/a2.json" "$d/b.json" "$d/c.json" \
        "$d/b-as-c.json" "$d/d.json"
    stdout_has "added 6,"
    local want="[('hw-a', None, []), ('hw-a (hardware 2)', '2026-12-02T10:00:00Z', []), ('hw-b', None, ['hw-c (hardware 2)']), ('hw-c', None, []), ('hw-d', None, [])]"
    local hosts='[(h["host"], h["new_hardware"] and h["new_hardware"]["since"], [m["host"] for m in h["same_machine"]]) for h in d["hosts"]]'
    expect 0 "$bin" fleet hosts --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" "$hosts") == "$want" ]] || fail "hosts by hardware: $(cat "$out")"
    expect 0 "$bin" fleet hosts --db "$db" --sku "$sku"
    stdout_matches "^hw-a \(hardware 2\)  runs 1 .*; hardware identity changed at the run of 2026-12-02T10:00:00Z \(another machine_id than hw-a's first runs\): counted as a new host, apart from hw-a$"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --accept-warning vm,low_confidence,poor_fit,failed_resamples --json
    [[ $(json_field "$out" 'd["hosts"]') == 5 ]] || fail "hosts counted: $(cat "$out")"

    # An identity the reader refuses: refused by ingest, naming the field.
    make_report "$fleet_fixture" "$d/bad.json" hw-e 2026-12-01T14:00:00Z 1004
    with_identity "$d/bad.json" machine_id 0e000000000000000000000000000001
    python3 -S -c 'import json, sys
doc = json.load(open(sys.argv[1]))
doc["host"]["hardware_identity"]["sha256"] = "0e00"
json.dump(doc, open(sys.argv[1], "w"))' "$d/bad.json"
    expect 2 "$bin" fleet ingest --db "$db" "$d/bad.json"
    stderr_has "host.hardware_identity.sha256: is not 64 lower-case hex digits"

    # A database of version 15: its digests (version 2) have no identity; opened, each is
    # written again, and the hosts are the same.
    db_sql "$db" "UPDATE run_digests SET digest = replace(digest, '\"v\":3', '\"v\":2')" >/dev/null
    db_sql "$db" "ALTER TABLE sku_answers DROP COLUMN fit" >/dev/null  # migration 17's
    undo_boot_reported "$db"
    db_sql "$db" "UPDATE schema_info SET version = 15" >/dev/null
    expect 0 "$bin" fleet hosts --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" "$hosts") == "$want" ]] || fail "hosts after migration 16: $(cat "$out")"
    [[ $(db_sql "$db" "SELECT version FROM schema_info") == 18 ]] || fail "not migrated to 18"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM run_digests WHERE digest LIKE '%\"v\":3%' AND digest LIKE '%\"hardware\":%'") == \
        "$(run_count "$db")" ]] || fail "digests after migration 16: $(db_sql "$db" "SELECT digest FROM run_digests" | cut -c1-200)"
}

# Boot records in the fleet database (docs/fleet.md "Boots"): `fleet ingest` takes them beside
# reports, told apart by their kind; a boot is stored once however often it is recorded (by its
# host and boot id, or for a saved log by the record without its time); a bad record is refused
# by its path; `verify --fleet-db` stores this boot's record, which waits in the spool when the
# database cannot take it and is sent by `verify --flush`.
boots_suite() {
    local db=$1 d=$work/boots root=$work/boot-host
    mkdir -p "$d"
    cp -a "$src/tests/fixtures/skylake-4node" "$root"
    mkdir -p "$root/proc/sys/kernel/random"
    for id in 1 2; do
        echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f6$id" >"$root/proc/sys/kernel/random/boot_id"
        expect 0 "$bin" verify --root "$root" --boot-record "$d/boot-$id.json"
    done
    # A saved log's record (no boot id), made twice: one boot.
    echo "root=/dev/sda1 hugepagesz=2M hugepages=524288 hugepage_alloc_threads=32" >"$work/boot-cmdline"
    for n in 1 2; do
        expect 0 "$bin" verify --root "$root" --log "$src/tests/fixtures/boot/logs/dmesg-6.15-threads32.log" \
            --cmdline "$work/boot-cmdline" --boot-record "$d/saved-$n.json"
        sleep 1.1  # another recorded_at
    done
    cmp -s "$d/saved-1.json" "$d/saved-2.json" && fail "the two records of the saved log are the same bytes"
    make_report "$fleet_fixture" "$d/report.json" boot-report-host
    expect 0 "$bin" fleet ingest --db "$db" --json "$d"
    [[ $(json_field "$out" 'len(d["added"]), len(d["boots_added"]), len(d["boots_skipped"])') == "(1, 3, 1)" ]] ||
        fail "boot records: $(cat "$out")"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records") == 3 ]] || fail "boot rows: $(db_sql "$db" "SELECT COUNT(*) FROM boot_records")"
    [[ $(db_sql "$db" "SELECT host || ' ' || sku_key || ' ' || threads || ' ' || milliseconds || ' ' || line_present FROM boot_records WHERE boot_id LIKE '%61'") == \
        "skylake-4node skylake-sp/4n/36t/384g/2048k/ioa0 32 16012 1" ]] || fail "boot row: $(db_sql "$db" "SELECT * FROM boot_records")"
    expect 0 "$bin" fleet ingest --db "$db" "$d/boot-1.json"
    stdout_has "boots added 0, boots already stored 1"
    # A record the reader refuses is refused alone, by its path.
    python3 -S - "$d/boot-1.json" "$work/bad-boot.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["threads"] = 5000
json.dump(r, open(sys.argv[2], "w"))
PY
    expect 2 "$bin" fleet ingest --db "$db" "$work/bad-boot.json"
    stderr_has "refused 1 of 1 report"
    stderr_has "refused $work/bad-boot.json: threads:"
    # The record says whether the machine booted in a VM (the probe's hypervisor, as a report's);
    # its clock and host name follow the report's rules: year 0000 and 2099 are refused, and the
    # same boot under its name in capitals with a trailing dot is the boot already stored.
    [[ $(json_field "$d/boot-1.json" 'd["schema_version"], d["virtualization"]') == "(2, 'none')" ]] ||
        fail "the record's virtualization: $(cat "$d/boot-1.json")"
    python3 -S - "$d/boot-1.json" "$work" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for name, at in (("future", "2099-01-01T00:00:00Z"), ("zero", "0000-01-01T00:00:00Z")):
    json.dump(dict(r, recorded_at=at), open(sys.argv[2] + "/boot-" + name + ".json", "w"))
json.dump(dict(r, host=r["host"].upper() + "."), open(sys.argv[2] + "/boot-upper.json", "w"))
PY
    expect 2 "$bin" fleet ingest --db "$db" "$work/boot-future.json"
    stderr_has "refused $work/boot-future.json: recorded_at 2099-01-01T00:00:00Z lies"
    stderr_has "set the host's clock"
    expect 2 "$bin" fleet ingest --db "$db" "$work/boot-zero.json"
    stderr_has "refused $work/boot-zero.json: recorded_at: '0000-01-01T00:00:00Z' is before 2025-01-01T00:00:00Z"
    expect 0 "$bin" fleet ingest --db "$db" "$work/boot-upper.json"
    stdout_has "boots added 0, boots already stored 1"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records") == 3 ]] || fail "one boot under two spellings stored twice"
    # verify --fleet-db: this boot's record, once however often verify runs.
    echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f63" >"$root/proc/sys/kernel/random/boot_id"
    expect 0 "$bin" verify --root "$root" --fleet-db "$db"
    stdout_has "sent 1 boot record, 0 stored before"
    expect 0 "$bin" verify --root "$root" --fleet-db "$db"
    stdout_has "sent 0 boot records, 1 stored before"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records") == 4 ]] || fail "verify --fleet-db did not store"
    # A database it cannot reach: the record waits in the spool under the root, the verdict is
    # verify's; the next verify that reaches the database sends it (here --flush).
    echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f64" >"$root/proc/sys/kernel/random/boot_id"
    expect 0 "$bin" verify --root "$root" --fleet-db "postgresql:///fleet?host=$work/no-server&user=hugetune&connect_timeout=2"
    stderr_has "did not take the boot records"
    stderr_has "1 record waits in $root/var/lib/hugetune/boot-records"
    [[ $(find "$root/var/lib/hugetune/boot-records" -name '*.json' | wc -l) == 1 ]] || fail "not spooled"
    HUGETUNE_FLEET_DB=$db expect 0 "$bin" verify --root "$root" --flush
    stdout_has "sent 1 boot record, 0 stored before"
    [[ $(find "$root/var/lib/hugetune/boot-records" -name '*.json' | wc -l) == 0 ]] || fail "the spool was not emptied"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records") == 5 ]] || fail "the spooled record was not stored"
    # A spool that is a link out of the tree, and a spooled link to a file outside: the link is
    # followed inside the tree (the tree's own copy of its target), which does not exist, and is
    # not made, as mkdir -p in a chroot would not: the record is lost, saying so, and nothing
    # outside is read or written. Once the tree holds the target, the record waits there, and the
    # outside file is neither read nor moved.
    local outside=$work/outside-spool
    mkdir -p "$outside"
    echo '{"kind": "hugetune-boot-record"}' >"$outside/planted.json"
    rm -r "$root/var/lib/hugetune/boot-records"
    ln -s "$outside" "$root/var/lib/hugetune/boot-records"
    echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f65" >"$root/proc/sys/kernel/random/boot_id"
    expect 0 "$bin" verify --root "$root" --fleet-db "postgresql:///fleet?host=$work/no-server&user=hugetune&connect_timeout=2"
    stderr_has "a link on the way that leads to nothing)); it is lost"
    [[ $(find "$outside" -type f | wc -l) == 1 ]] || fail "the spool wrote out of the tree: $(ls "$outside")"
    [[ ! -e $root$outside ]] || fail "the spool made the link's target"
    mkdir -p "$root$outside"
    echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f66" >"$root/proc/sys/kernel/random/boot_id"
    expect 0 "$bin" verify --root "$root" --fleet-db "postgresql:///fleet?host=$work/no-server&user=hugetune&connect_timeout=2"
    [[ $(find "$outside" -type f | wc -l) == 1 ]] || fail "the spool wrote out of the tree: $(ls "$outside")"
    [[ $(find "$root$outside" -name '*.json' | wc -l) == 1 ]] || fail "the record was not kept inside the tree"
    ln -s "$outside/planted.json" "$root$outside/planted.json"
    HUGETUNE_FLEET_DB=$db expect 0 "$bin" verify --root "$root" --flush
    stdout_has "sent 1 boot record, 0 stored before"
    [[ -f $outside/planted.json && ! -e $outside/planted.bad ]] || fail "the planted file was touched"
    rm "$root/var/lib/hugetune/boot-records" "$root$outside/planted.json"
    # A password in the URL is refused before anything is read: it would stand on a command line.
    expect_error 2 "holds a password" "$bin" verify --root "$root" --fleet-db "postgresql://u:Secret9@localhost/db"
    [[ $(cat "$err") != *Secret9* ]] || fail "the password was printed"
    expect_error 2 "--flush" "$bin" verify --root "$root" --flush

    # The boots in the answer: six hosts with reports boot the sweeps' value R, then the same
    # six boot another value 30% faster: the answer is that value, settled_by_boots, and the
    # export follows it. With boots at R alone nothing is decided.
    local sku r f
    sku=$(sku_key_of "$d/report.json")
    mkdir -p "$work/boot-reports"
    make_reports "$fleet_fixture" "$work/boot-reports" boot-h 6
    expect 0 "$bin" fleet ingest --db "$db" "$work/boot-reports"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    r=$(json_field "$out" 'd["hugepage_alloc_threads"]')
    f=$(( r > 1 ? r / 2 : 2 ))
    make_boot_records() {  # make_boot_records DIR THREADS MS [HYPERVISOR]: 6 hosts, 2 boots each
        python3 -S - "$1" "$sku" "$2" "$3" "${4:-}" <<'PY'
import json, sys, uuid
out, sku, threads, ms, vm = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
for h in range(1, 7):
    for rep in range(2):
        n = threads * 1000 + h * 10 + rep + (500 if vm else 0)
        t = ms + 7 * h + rep
        r = {"kind": "hugetune-boot-record", "schema_version": 1,
             "recorded_at": "2026-12-01T10:00:%02dZ" % rep, "host": "boot-h%d" % h,
             "sku_key": sku, "boot_id": str(uuid.UUID(int=n)), "kernel_release": "6.15.3",
             "pool": {"pages": 262144, "page_size_kb": 2048}, "threads": threads,
             "milliseconds": t, "init_on_alloc": False, "hvo": False,
             "allocation_line": {"present": True, "absent_reason": None,
                                 "text": "HugeTLB: allocation took %dms with hugepage_allocation_threads=%d" % (t, threads)},
             "expected_alloc_threads": None}
        if vm:
            r.update(schema_version=2, virtualization=vm)
        json.dump(r, open("%s/b-%d.json" % (out, n), "w"))
PY
    }
    mkdir -p "$work/boots-r" "$work/boots-f" "$work/boots-vm"
    make_boot_records "$work/boots-r" "$r" 10000
    make_boot_records "$work/boots-f" "$f" 7000
    make_boot_records "$work/boots-vm" "$f" 7000 KVM
    expect 0 "$bin" fleet ingest --db "$db" "$work/boots-r"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" 'd["status"] != "settled_by_boots" and d["boots"]["decided"] is None and len(d["boots"]["values"])') == 1 ]] ||
        fail "boots at one value decided: $(json_field "$out" 'd["boots"]')"
    # The same hosts' boots at the faster value, recorded in KVM guests: set aside, nothing
    # decided.
    expect 0 "$bin" fleet ingest --db "$db" "$work/boots-vm"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" 'd["status"] != "settled_by_boots", d["boots"]["decided"], [(x["threads"], x["why"], x["hosts"], x["boots"]) for x in d["boots"]["refused"]]') == \
        "(True, None, [($f, 'virtual', 6, 12)])" ]] ||
        fail "boots in VMs counted: $(json_field "$out" 'd["status"], d["boots"]')"
    # Asked as a SKU of VMs (its guests' reports accepted), the guests' boots count: none set aside.
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --accept-warning vm --json
    [[ $(json_field "$out" 'd["boots"]["refused"], d["boots"]["hosts"]') == "([], 6)" ]] ||
        fail "a SKU of VMs set its boots aside: $(json_field "$out" 'd["boots"]')"
    expect 0 "$bin" fleet ingest --db "$db" "$work/boots-f"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" 'd["status"], d["hugepage_alloc_threads"], d["kernel_cmdline"], d["boots"]["decided"]') == \
        "('settled_by_boots', $f, 'hugepage_alloc_threads=$f', $f)" ]] ||
        fail "the boots did not settle on $f: $(json_field "$out" 'd["status"], d["status_reason"], d["boots"]')"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku"
    stdout_has "status     settled_by_boots: The boots settle on hugepage_alloc_threads=$f"
    stdout_has "threads=$f: "
    expect 0 "$bin" fleet export --db "$db" --format ansible
    stdout_has "hugetune_kernel_cmdline: \"hugepage_alloc_threads=$f\""

    # A canary plan on that SKU (docs/fleet.md "Canary plans"), now of 19 hosts: values checked
    # against the SKU's CPUs first; half of the hosts in the arms (here one: the SKU has 2
    # hardware threads), each host exported once, in its arm or with the answer; one plan at a
    # time; stopped, the exports drop the arm.
    make_reports "$fleet_fixture" "$d" plan-host- 12
    expect 0 "$bin" fleet ingest --db "$db" "$d"
    expect_error 2 "--values: 3 is outside 1 to 2" "$bin" fleet plan --db "$db" --sku "$sku" --values 3
    expect_error 2 "--values: $f is the answer itself" "$bin" fleet plan --db "$db" --sku "$sku" --values "$f"
    expect_error 2 "--share: '60' is no percentage from 0.1 to 50" "$bin" fleet plan --db "$db" --sku "$sku" --share 60
    expect_error 2 "has no open canary plan" "$bin" fleet plan --db "$db" --sku "$sku" --status
    expect 0 "$bin" fleet plan --db "$db" --sku "$sku" --share 50
    stdout_has "beside the answer $f: 50.0% of 19 hosts"
    expect_error 2 "has an open canary plan" "$bin" fleet plan --db "$db" --sku "$sku"
    expect 0 "$bin" fleet plan --db "$db" --sku "$sku" --status --json
    [[ $(json_field "$out" '[a["arm_value"] for a in d["arms"]], d["answer"]["hosts"] + sum(a["hosts"] for a in d["arms"]), d["decided"]') == \
        "([$((3 - f))], 19, False)" ]] || fail "plan status: $(cat "$out")"
    local in_arm
    in_arm=$(json_field "$out" 'd["arms"][0]["hosts"]')
    (( in_arm >= 3 && in_arm <= 16 )) || fail "$in_arm of 19 hosts in the arm at a share of 50%"
    expect 0 "$bin" fleet export --db "$db" --format ansible
    python3 -S - "$out" "$in_arm" "$((3 - f))" <<'PY' || fail "the export with the plan: $(cat "$out")"
import re, sys
text, in_arm, value = open(sys.argv[1]).read(), int(sys.argv[2]), sys.argv[3]
hosts = re.findall(r'^        "([^"]+)": \{\}$', text, re.M)
assert len(hosts) == len(set(hosts)) == 19, hosts
arm = text.split("_canary_" + value + ":")[1]
assert len(re.findall(r'^        "', arm.split("vars:")[0], re.M)) == in_arm, arm
assert 'hugetune_kernel_cmdline: "hugepage_alloc_threads=%s"' % value in arm
PY
    expect 0 "$bin" fleet plan --db "$db" --sku "$sku" --stop
    expect 0 "$bin" fleet export --db "$db" --format ansible
    [[ $(cat "$out") != *_canary_* ]] || fail "a stopped plan's arm is exported"
    expect_error 2 "has no open canary plan" "$bin" fleet plan --db "$db" --sku "$sku" --stop
    # fleet forget takes a host's boots with its runs (here two boots at each of the two values
    # and two in a VM), also those of a host known only by its boots (skylake-4node's, of verify
    # above).
    expect 0 "$bin" fleet forget --db "$db" --host boot-h1 --json
    [[ $(json_field "$out" 'd["boot_records"], len(d["runs"])') == "(6, 1)" ]] || fail "forget boots: $(cat "$out")"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records WHERE host = 'boot-h1'") == 0 ]] || fail "boot-h1's boots stayed"
    local own
    own=$(db_sql "$db" "SELECT COUNT(*) FROM boot_records WHERE host = 'skylake-4node'")
    ((own > 0)) || fail "no boots of skylake-4node to forget"
    expect 0 "$bin" fleet forget --db "$db" --host skylake-4node --json
    [[ $(json_field "$out" 'd["boot_records"], len(d["runs"])') == "($own, 0)" ]] || fail "forget boots only: $(cat "$out")"
}

# JSON Lines files of boot records (docs/fleet.md "Boots at fleet size"): counted per file, a bad
# line refused alone by FILE:LINE, a boot given twice stored once; the database's tally of a SKU's
# boots (PostgreSQL's aggregates, SQLite's stream) is the client's, byte for byte.
boot_lines_suite() {
    local db=$1 n=${2:-40} d=$work/boot-lines tools
    tools=$(dirname "$bin")/tests
    "$tools/gen-fleet" --seed 21 --out "$d" --skus 2 --hosts-per-sku 6 --outliers 0 --fit-once 1 \
        --boot-hosts-per-sku "$n" 2>"$work/gen.err" || fail "gen-fleet: $(cat "$work/gen.err")"
    rm "$d/truth.json"
    local lines=$d/boots.jsonl
    # After the 2n records: the first again, a blank line, threads 0, a line longer than any
    # record, a report (not a record).
    python3 -S - "$lines" "$fleet_fixture" <<'PY'
import json, sys
path, report = sys.argv[1:]
first = open(path).readline()
bad = json.loads(first)
bad["boot_id"] = "00000000-0000-4000-8000-00000000beef"
bad["threads"] = 0
with open(path, "a") as f:
    f.write(first + "\n" + json.dumps(bad) + "\n" + "x" * 70000 + "\n")
    f.write(json.dumps(json.load(open(report))) + "\n")
PY
    expect 2 "$bin" fleet ingest --db "$db" --json "$d"
    [[ $(json_field "$out" 'len(d["added"]), d["boot_lines"], [r["file"] for r in d["refused"]], d["refused_count"]') == \
        "(12, [{'added': $((2 * n)), 'file': '$lines', 'stored_before': 1}], ['$lines:$((2 * n + 3))', '$lines:$((2 * n + 4))', '$lines:$((2 * n + 5))'], 3)" ]] ||
        fail "JSON Lines ingest: $(cat "$out")"
    stderr_has "refused $lines:$((2 * n + 3)): threads"
    stderr_has "refused $lines:$((2 * n + 4)): longer than 65536 bytes"
    stderr_has "refused $lines:$((2 * n + 5)): not a hugetune boot record"
    stderr_has "refused 3 of $((2 * n + 16)) documents"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records") == $((2 * n)) ]] || fail "boot rows: $(db_sql "$db" "SELECT COUNT(*) FROM boot_records")"
    expect 2 "$bin" fleet ingest --db "$db" "$lines"
    stdout_has "boots added 0, boots already stored $((2 * n + 1))"
    local sku
    for sku in $(db_sql "$db" "SELECT DISTINCT sku_key FROM boot_records ORDER BY 1"); do
        "$tools/boot-tally" "$db" "$sku" database >"$work/tally-db" 2>"$work/tally.err" || fail "boot-tally: $(cat "$work/tally.err")"
        "$tools/boot-tally" "$db" "$sku" client >"$work/tally-client" 2>"$work/tally.err" || fail "boot-tally: $(cat "$work/tally.err")"
        cmp -s "$work/tally-db" "$work/tally-client" ||
            fail "$sku: the database's tally is not the client's: $(diff "$work/tally-db" "$work/tally-client" | head -5)"
        # The n boots are of the SKU's 6 reported hosts in turn, each host at one value.
        [[ $(grep -c '^host ' "$work/tally-db") == 6 ]] || fail "$sku: $(cat "$work/tally-db")"
        "$bin" fleet recommend --db "$db" --sku "$sku" --json >"$work/rec.json" 2>"$work/rec.err" || true
        [[ $(json_field "$work/rec.json" 'd["boots"]["boots"] + d["boots"]["refused_boots"], d["boots"]["other_boots"]') == "($n, 0)" ]] ||
            fail "$sku: the answer's boots: $(cat "$work/rec.json" "$work/rec.err")"
    done
    # A JSON Lines file that cannot be read is refused whole; the others are stored.
    expect 2 "$bin" fleet ingest --db "$db" "$work/no-such.jsonl"
    stderr_has "refused $work/no-such.jsonl: cannot be read"
}

# stored_rows DB: every stored run as one line (host, time, content hash, the report's SHA-256,
# tool, kernel, decision, threads, predicted seconds and confidence as the doubles they hold,
# warnings) and its digest's SHA-256, in id order; the same lines from SQLite and PostgreSQL
# when both stored the same reports.
stored_rows() {
    local q="SELECT h.hostname, r.generated_at, r.content_hash, r.report, r.tool_version,
        r.kernel_release, r.decision, r.hugepage_alloc_threads, r.predicted_seconds,
        r.confidence, r.warnings, d.digest FROM runs r JOIN hosts h ON h.id = r.host_id
        LEFT JOIN run_digests d ON d.run_id = r.id ORDER BY r.id"
    if [[ $1 == postgresql://* ]]; then
        psql -X -q -A -F $'\x1f' -R $'\x1e' -t -v ON_ERROR_STOP=1 "$1" -c "$q"
    else
        python3 -S -c 'import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(sys.argv[2])
sys.stdout.write("\x1e".join("\x1f".join("" if v is None else str(v) for v in r) for r in rows))' "$1" "$q"
    fi | python3 -S -c 'import hashlib, sys
for row in sys.stdin.read().rstrip("\n").split("\x1e"):
    v = row.split("\x1f")
    sha = lambda s: hashlib.sha256(s.encode()).hexdigest()[:16]
    print(v[0], v[1], v[2], sha(v[3]), v[4], v[5], v[6], v[7], repr(float(v[8])),
          repr(float(v[9])) if v[9] else None, v[10], sha(v[11]) if v[11] else None)'
}

# groups_suite DB: an ingest larger than one of PostgreSQL's groups (500 reports, fleet_db/ingest_batch.cpp
# kRunCopyRows): a report stored before and a conflict in a later group than their host's, a
# report whose stored text holds escapes, a second ingest of hosts stored before, each filed as
# SQLite files it (a conflict exits 2, the rest stored), and runs stored as SQLite stores them, row for row.
groups_suite() {
    local db=$1 d=$work/groups sqlite=$work/groups-reference.db kernel
    mkdir -p "$d"
    make_reports "$fleet_fixture" "$d" g 620
    kernel=$(json_field "$fleet_fixture" 'd["kernel"]["release"]')
    # Ingested in the order of their names: the g*.json, then the files named z-*.
    cp "$d/g3.json" "$d/z-g3-again.json"
    make_report "$fleet_fixture" "$d/z-g3-conflict.json" g3 "" "" "$kernel-other"
    python3 -S - "$d/g7.json" "$d/z-escapes.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["host"]["hostname"] = "escapes"
doc["cpu"]["model_name"] = 'generated "quoted" back\\slash'
json.dump(doc, open(sys.argv[2], "w"))
PY
    local target
    for target in "$sqlite" "$db"; do
        expect 2 "$bin" fleet ingest --db "$target" --json "$d"
        json_field "$out" '[len(d["added"]), d["added"], d["skipped"], d["conflicts"]]' >"$work/groups-filed-${target##*/}"
    done
    [[ $(head -c 200 "$work/groups-filed-${sqlite##*/}") == "[621, ['$d/g1.json', "* ]] ||
        fail "groups: $(head -c 300 "$work/groups-filed-${sqlite##*/}")"
    grep -F "['$d/z-g3-again.json'], ['$d/z-g3-conflict.json']]" "$work/groups-filed-${sqlite##*/}" >/dev/null ||
        fail "groups: not stored before and a conflict: $(tail -c 300 "$work/groups-filed-${sqlite##*/}")"
    cmp -s "$work/groups-filed-${sqlite##*/}" "$work/groups-filed-${db##*/}" ||
        fail "groups: filed otherwise than by SQLite"
    # Again, with new reports of hosts stored before: their runs read, one of them a conflict.
    make_report "$fleet_fixture" "$d/z-g600-later.json" g600 2026-12-01T11:00:00Z
    make_report "$fleet_fixture" "$d/z-g601-conflict.json" g601 "" "" "$kernel-other"
    rm -f "$d/z-g3-again.json" "$d/z-g3-conflict.json"
    for target in "$sqlite" "$db"; do
        expect 2 "$bin" fleet ingest --db "$target" --json "$d"
        [[ $(json_field "$out" 'd["added"], len(d["skipped"]), d["conflicts"]') == "(['$d/z-g600-later.json'], 621, ['$d/z-g601-conflict.json'])" ]] ||
            fail "groups again ($target): $(head -c 600 "$out")"
    done
    stored_rows "$sqlite" >"$work/groups-sqlite.txt"
    stored_rows "$db" >"$work/groups-db.txt"
    [[ $(wc -l <"$work/groups-db.txt") == 622 ]] || fail "groups: $(wc -l <"$work/groups-db.txt") runs stored, not 622"
    cmp -s "$work/groups-sqlite.txt" "$work/groups-db.txt" ||
        fail "groups: the runs stored differ from SQLite's: $(diff "$work/groups-sqlite.txt" "$work/groups-db.txt" | head -4)"
    db_sql "$db" "SELECT report FROM runs r JOIN hosts h ON h.id = r.host_id WHERE h.hostname = 'escapes'" >"$work/groups-escapes.txt"
    grep -F '"generated \"quoted\" back\\slash"' "$work/groups-escapes.txt" >/dev/null ||
        fail "groups: the escaped text was not stored as written"
    # The SKU's runs read back as they come (on PostgreSQL a cursor, more than one fetch of
    # fleet_queries.cpp kRowsPerFetch, 512): the answer SQLite gives.
    local sku fields='d["hosts"], d["runs"], d["status"], d["hugepage_alloc_threads"], d["confidence"]'
    sku=$(sku_key_of "$d/g1.json")
    expect 0 "$bin" fleet recommend --db "$sqlite" --sku "$sku" --json
    json_field "$out" "$fields" >"$work/groups-answer-sqlite.txt"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    (($(json_field "$out" 'd["runs"]') > 512)) || fail "groups: the answer read $(json_field "$out" 'd["runs"]') runs, one fetch or less"
    [[ $(json_field "$out" "$fields") == "$(cat "$work/groups-answer-sqlite.txt")" ]] ||
        fail "groups: the answer differs from SQLite's: $(json_field "$out" "$fields") against $(cat "$work/groups-answer-sqlite.txt")"
}

# stale_suite DB: sixteen generated hosts of one SKU, four monthly reports each, the newest on a
# new kernel whose curve drifted (less contention between allocating threads). Each host's
# older runs of the old kernel give way to its newest of that kernel; the one of the old kernel
# left still outvotes the hosts' newest runs, so the answer fails stale_runs (and, the two
# kernels' curves pooled, low_confidence), settled nowhere: not in the exports, not as settled
# in the metrics. Forgotten, the old kernel's runs leave the
# newest runs' answer, settled.
stale_suite() {
    local db=$1 d=$work/stale tools sku
    tools=$(dirname "$bin")/tests
    "$tools/gen-fleet" --seed 3 --out "$d/gen" --skus 2 --hosts-per-sku 16 --outliers 0 --fit-once 1 \
        --verify-share 0 2>"$work/gen.err" || fail "gen-fleet: $(cat "$work/gen.err")"
    sku=$(json_field "$d/gen/truth.json" 'd["skus"][1]["key"]')
    python3 -S - "$d/gen" "$d/months" "$sku" <<'PY'
import glob, json, math, os, random, sys
gen, out, sku = sys.argv[1:]
truth = [s for s in json.load(open(gen + "/truth.json"))["skus"] if s["key"] == sku][0]
sigma, kappa = truth["sigma"], truth["kappa"]
def alloc(k, n):  # the generator's boot work per page plus the zeroing (fleet_generator.cpp)
    return (1 + sigma * (n - 1) + k * n * (n - 1)) / n + 0.35 * (1 + 0.01 * (n - 1)) / n
rng = random.Random(7)
os.makedirs(out)
for host in truth["hosts"]:
    base = json.load(open(f"{gen}/{host}.json"))
    for month in range(4):
        doc = json.loads(json.dumps(base))
        new = month == 3
        doc["kernel"]["release"] = "6.16.1" if new else "6.15.3"
        doc["generated_at"] = "2026-%02d-01T00:00:00Z" % (3 + month)
        for p in doc["sweep"]["points"]:
            n = p["threads_per_node"]
            drift = alloc(kappa * 0.2, n) / alloc(kappa, n) if new and p["phase"] == "alloc" else 1
            p["samples_seconds"] = [s * drift * math.exp(0.02 * rng.gauss(0, 1)) for s in p["samples_seconds"]]
            p["median_seconds"] = sorted(p["samples_seconds"])[len(p["samples_seconds"]) // 2]
        json.dump(doc, open(f"{out}/{host}-{month}.json", "w"))
PY
    expect 0 "$bin" fleet ingest --db "$db" "$d/months"
    stdout_has "added 64,"
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" 'd["status"] in ("settled", "settled_by_boots"), d["hosts"], d["runs"], d["status_reasons"][-1]["code"]') == \
        "(False, 16, 64, 'stale_runs')" ]] ||
        fail "four months of runs: $(json_field "$out" 'd["status"], d["status_reason"], d["hugepage_alloc_threads"]')"
    json_field "$out" 'd["status_reason"]' | grep -q "the fitted hosts' newest runs alone give hugepage_alloc_threads=" ||
        fail "the reason: $(json_field "$out" 'd["status_reason"]')"
    expect 0 "$bin" fleet skus --db "$db"
    stdout_matches "^$sku  hosts 16  runs 64  "
    expect 0 "$bin" fleet export --db "$db" --format cmdline
    stdout_empty
    expect 0 "$bin" fleet export --db "$db" --format ansible
    grep -q "hugetune_kernel_cmdline" "$out" && fail "a stale answer exported: $(cat "$out")"
    expect 0 "$bin" fleet export --db "$db" --format prometheus --out "$work/stale.prom"
    # The status at 1 is the answer's first reason; stale_runs is one of the statuses an alert
    # can name, and neither settled status is 1.
    grep -q "^hugetune_fleet_sku_status{sku=\"$sku\",status=\"stale_runs\"} [01]$" "$work/stale.prom" &&
        grep -q "^hugetune_fleet_sku_status{sku=\"$sku\",status=\"settled\"} 0$" "$work/stale.prom" &&
        grep -q "^hugetune_fleet_sku_status{sku=\"$sku\",status=\"settled_by_boots\"} 0$" "$work/stale.prom" ||
        fail "prom status: $(grep sku_status "$work/stale.prom")"
    # The old kernel's runs forgotten: the newest runs' own answer, settled and exported.
    expect 0 "$bin" fleet forget --db "$db" --kernel 6.15.3
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    [[ $(json_field "$out" 'd["status"], d["runs"]') == "('settled', 16)" ]] ||
        fail "the newest runs alone: $(json_field "$out" 'd["status"], d["status_reason"]')"
    expect 0 "$bin" fleet export --db "$db" --format cmdline
    stdout_has "$sku hugepage_alloc_threads="
}

# heap_pages_suite DB: the subcommands that hold a SKU in memory start once more, with glibc's
# malloc asking for transparent huge pages (tuner/system/own_binary.hpp), unless the kernel's are
# off or the binary is a sanitizer build (whose allocator is the sanitizer's): each start is one
# "initialize program" line of the dynamic loader's log. A GLIBC_TUNABLES that names the tunable
# is the user's and is kept; the other subcommands and --help start once. The answer is the same
# either way. DB holds a SKU.
heap_pages_suite() {
    local db=$1 thp holding=2 sub sku
    starts() { LD_DEBUG=libs "$@" 2>&1 >/dev/null | grep -c "initialize program:"; }
    thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
    [[ -z $thp || $thp == *"[never]"* ]] && holding=1
    ldd "$bin" 2>/dev/null | grep -q libasan && holding=1
    sku=$(db_sql "$db" "SELECT sku_key FROM skus ORDER BY sku_key LIMIT 1")
    for sub in skus recommend hosts export; do
        local args=(fleet "$sub" --db "$db")
        [[ $sub == recommend || $sub == hosts ]] && args+=(--sku "$sku")
        [[ $(starts "$bin" "${args[@]}") == "$holding" ]] ||
            fail "fleet $sub started $(starts "$bin" "${args[@]}") times, expected $holding (transparent huge pages: ${thp:-none})"
        [[ $(GLIBC_TUNABLES=glibc.malloc.hugetlb=0 starts "$bin" "${args[@]}") == 1 ]] ||
            fail "fleet $sub ran again over the user's GLIBC_TUNABLES"
    done
    [[ $(starts "$bin" fleet runs --db "$db") == 1 ]] || fail "fleet runs started twice"
    [[ $(starts "$bin" fleet recommend --help) == 1 ]] || fail "fleet recommend --help started twice"
    db_sql "$db" "DELETE FROM sku_answers" >/dev/null
    expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    cp "$out" "$work/answer-run-again.json"
    db_sql "$db" "DELETE FROM sku_answers" >/dev/null
    GLIBC_TUNABLES=glibc.malloc.hugetlb=0 expect 0 "$bin" fleet recommend --db "$db" --sku "$sku" --json
    cmp -s "$out" "$work/answer-run-again.json" || fail "the answer differs when run again with huge pages"
}
