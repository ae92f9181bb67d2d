#!/usr/bin/env bash
# Boot records on their ways into the fleet database (docs/fleet.md "Ingest" and "Boots"), on an
# embedded SQLite file: every refusal fits in --json's output, JSON Lines come on standard input
# too, `verify --json`'s output gives its record, `verify --fleet-db` sends only what `fleet
# ingest` takes, --host reads one way in every command, and the spool is read by one verify at a
# time, never reads a writer's temporary file, and keeps a bounded number of files set aside.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/fleet.bash"
require_command python3 "the suite edits records and reads the database with it"

db=$work/intake.db
root=$work/host
spool=$root/var/lib/hugetune/boot-records
cp -a "$src/tests/fixtures/skylake-4node" "$root"
mkdir -p "$root/proc/sys/kernel/random"
echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f61" >"$root/proc/sys/kernel/random/boot_id"
expect 0 "$bin" verify --root "$root" --boot-record "$work/boot-1.json"

# records OUT COUNT FIRST [EDIT]: COUNT copies of boot-1.json, one a line, with boot ids from
# FIRST on; EDIT, python run on each record `r`.
records() {
    python3 -S - "$work/boot-1.json" "$@" <<'PY'
import json, sys, uuid
src, out, count, first = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
edit = sys.argv[5] if len(sys.argv) > 5 else ""
with open(out, "w") as f:
    for n in range(first, first + count):
        r = json.load(open(src))
        r["boot_id"] = str(uuid.UUID(int=n))
        exec(edit)
        f.write(json.dumps(r) + "\n")
PY
}

# A refused record whose host is not ASCII, in a file whose name is not UTF-8: --json still
# prints its whole summary, valid JSON, the name escaped as on a terminal, the character kept.
bad_name=$work/$'bad-\xff.json'
records "$bad_name" 1 100 'r["host"] = "caf\u00e9-17"'
records "$work/good.json" 1 101
expect 2 "$bin" fleet ingest --db "$db" --json "$work/good.json" "$bad_name"
[[ $(json_field "$out" 'd["boots_added"], [r["file"] for r in d["refused"]], d["refused_count"]') == \
    "(['$work/good.json'], ['$work/bad-\\\\xff.json'], 1)" ]] || fail "summary: $(cat "$out")"
[[ $(json_field "$out" 'd["refused"][0]["reason"]') == "host: it holds 'é', and a host name"* ]] ||
    fail "reason: $(cat "$out")"
stderr_has "refused $work/bad-\\xff.json: host: it holds 'é'"

# JSON Lines on standard input, streamed as a file's are: each line a record, a bad line
# refused alone by its number, the others stored.
records "$work/lines.jsonl" 30 200
records "$work/bad-line.jsonl" 1 300 'r["threads"] = 0'
cat "$work/lines.jsonl" "$work/bad-line.jsonl" >"$work/stdin.jsonl"
expect 2 "$bin" fleet ingest --db "$db" --json - <"$work/stdin.jsonl"
[[ $(json_field "$out" 'd["boot_lines"], [r["file"] for r in d["refused"]]') == \
    "([{'added': 30, 'file': '<stdin>', 'stored_before': 0}], ['<stdin>:31'])" ]] ||
    fail "JSON Lines on stdin: $(cat "$out")"
stderr_has "refused <stdin>:31: threads:"
[[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records") == 31 ]] || fail "boot rows after stdin"
# A report on standard input is one document still, indented or on one line.
make_report "$fleet_fixture" "$work/report.json" web-17
expect 0 "$bin" fleet ingest --db "$db" - <"$work/report.json"
stdout_has "added 1,"
python3 -S -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$work/report.json" >"$work/report-line.json"
expect 0 "$bin" fleet ingest --db "$db" - <"$work/report-line.json"
stdout_has "added 0, verification added 0, already stored 1"

# The output of `verify --json` gives the boot record it holds, from a file or from stdin.
echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f62" >"$root/proc/sys/kernel/random/boot_id"
expect 0 "$bin" verify --root "$root" --json
cp "$out" "$work/verify.json"
expect 0 "$bin" fleet ingest --db "$db" "$work/verify.json"
stdout_has "boots added 1, boots already stored 0"
expect 0 "$bin" fleet ingest --db "$db" - <"$work/verify.json"
stdout_has "boots added 0, boots already stored 1"

# verify --fleet-db sends only a record `fleet ingest` takes: a logged release longer than
# uname's 64 characters, a line's thread count past any the kernel takes (stored as 8 before)
# are said and kept out of the database and the spool; verify's exit code stays its verdict's.
rows=$(db_sql "$db" "SELECT COUNT(*) FROM boot_records")
echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f63" >"$root/proc/sys/kernel/random/boot_id"
long=6.15.0-$(printf 'x%.0s' {1..60})
sed -i "s/Linux version 6.15.0-hugetune-fixture/Linux version $long/" "$root/dev/kmsg"
expect 0 "$bin" verify --root "$root" --fleet-db "$db"
stderr_has "this boot's record: kernel_release: '$long' is not a kernel release"
stderr_has "not sent to the fleet database"
sed -i "s/Linux version $long/Linux version 6.15.0-hugetune-fixture/" "$root/dev/kmsg"
sed -i 's/hugepage_allocation_threads=32/hugepage_allocation_threads=4294967304/' "$root/dev/kmsg"
expect 1 "$bin" verify --root "$root" --fleet-db "$db"
stderr_has "this boot's record: threads: is 4294967304; must be a whole number from 1 to 4096"
[[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records") == "$rows" ]] || fail "a refused record was stored"
[[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records WHERE threads = 8") == 0 ]] || fail "threads wrapped"
[[ ! -e $spool || -z $(ls -A "$spool") ]] || fail "a refused record was spooled: $(ls -A "$spool")"
sed -i 's/hugepage_allocation_threads=4294967304/hugepage_allocation_threads=32/' "$root/dev/kmsg"

# One reading of --host in every command: the FQDN form with its trailing dot and upper case.
expect 0 "$bin" fleet runs --db "$db" --host WEB-17.
expect 0 "$bin" fleet recommend --db "$db" --host web-17. --json
[[ $(json_field "$out" 'd["hosts"]') == 1 ]] || fail "recommend --host: $(cat "$out")"
expect 0 "$bin" fleet forget --db "$db" --host Web-17. --dry-run
expect_error 2 "--host: 'web 17' is not a host name" "$bin" fleet recommend --db "$db" --host "web 17"

# The spool: a writer's temporary file (a name with a leading dot) is never read, and two
# verifies at once never take each other's records for bad ones: one sends the spool, the
# other leaves it to it.
mkdir -p "$spool"
python3 -S - "$work/boot-1.json" "$spool" <<'PY'
import json, sys, uuid
src, spool = sys.argv[1:]
for n in range(400):
    r = json.load(open(src))
    r["boot_id"] = str(uuid.UUID(int=1000 + n))
    open("%s/20261203T%06dZ-%016x.json" % (spool, n, n), "w").write(json.dumps(r) + "\n")
PY
printf '{"kind": "hugetune-boot' >"$spool/.20261203T999999Z-0000000000000000.json"
HUGETUNE_FLEET_DB=$db "$bin" verify --root "$root" --flush >"$work/a.out" 2>"$work/a.err" &
first=$!
HUGETUNE_FLEET_DB=$db "$bin" verify --root "$root" --flush >"$work/b.out" 2>"$work/b.err" || true
wait "$first" || true
! grep -h "not a boot record" "$work/a.err" "$work/b.err" >/dev/null ||
    fail "false warnings: $(grep -ch "not a boot record" "$work/a.err" "$work/b.err")"
[[ -e $spool/.20261203T999999Z-0000000000000000.json && -z $(find "$spool" -name '*.bad') ]] ||
    fail "the temporary file was read: $(ls -A "$spool")"
HUGETUNE_FLEET_DB=$db expect 0 "$bin" verify --root "$root" --flush
[[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records") == $((rows + 400)) ]] || fail "spooled records lost"

# Files that are no record are set aside as *.bad, at most 20 kept: the newest.
for n in $(seq -w 1 30); do echo "not a record $n" >"$spool/20261201T0000${n}Z-bad.json"; done
HUGETUNE_FLEET_DB=$db expect 0 "$bin" verify --root "$root" --flush
stderr_has "set aside a spooled file that is not a boot record"
[[ $(find "$spool" -name '*.bad' | wc -l) == 20 ]] || fail "*.bad kept: $(find "$spool" -name '*.bad' | wc -l)"
[[ -e $spool/20261201T000030Z-bad.bad && ! -e $spool/20261201T000010Z-bad.bad ]] ||
    fail "not the newest kept: $(ls "$spool")"
echo "fleet intake: all passed"
