# The hostile-boots suite (docs/fleet.md "What counts as evidence"): a generated SKU of 1,000
# reporting hosts, some of which recorded real boots, and then boot records forged in every way
# the evidence rules answer. Whatever is forged, the value the fleet exports for the SKU, its
# decision and its status stay what they were. Needs lib/fleet.bash.

# forge_boots TEMPLATE OUT SKU RECOMMENDED: JSON Lines of forged records, each built from one
# real record of the SKU (TEMPLATE, one line) so that only what is forged differs.
forge_boots() {
    python3 -S - "$@" <<'PY'
import copy, json, sys
template, out, sku, recommended = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
base = json.loads(open(template).readline())
pages = base["pool"]["pages"]
serial = [0]

def record(host, threads, ms, kernel=None, recorded_at=None):
    serial[0] += 1
    r = copy.deepcopy(base)
    r["host"], r["threads"], r["milliseconds"] = host, threads, ms
    r["boot_id"] = "%08x-0000-4000-8000-%012x" % (0xbad, serial[0])
    r["sku_key"] = sku
    if kernel:
        r["kernel_release"] = kernel
    if recorded_at:
        r["recorded_at"] = recorded_at
    r["allocation_line"]["text"] = (
        "HugeTLB: allocation took %dms with hugepage_allocation_threads=%d" % (ms, threads))
    return json.dumps(r, sort_keys=True)

lines = []
known = ["skylake-sp-0-host%02d" % i for i in range(1000)]
# Ghost hosts, no report of the SKU names them: 300 of them favour the default-ish 16 over the
# recommended value, and 20 a value above the SKU's CPUs.
for i in range(300):
    lines.append(record("ghost-%03d" % i, 16, 1000))
    lines.append(record("ghost-%03d" % i, recommended, 60000))
for i in range(20):
    lines.append(record("ghost-big-%02d" % i, 4096, 1))
# A flood: four reporting hosts, 300 boots each at 16 (fast) and at the recommended value
# (slow). One host one vote: four hosts are fewer than a value needs.
for h in known[:4]:
    for _ in range(300):
        lines.append(record(h, 16, 2000))
        lines.append(record(h, recommended, 40000))
# One reporting host records 31 boots on another kernel: the boots compared stay those of the
# kernel most hosts booted.
for _ in range(31):
    lines.append(record(known[4], 16, 2000, kernel="7.0.0"))
# Values no boot may count for, from 40 reporting hosts each: above the SKU's CPUs, never asked
# by a sweep, a plan or the answer, and times no boot of this pool can take (0 ms, a day).
for h in known[10:50]:
    lines.append(record(h, 4096, 100))
    lines.append(record(h, 7, 100))
    lines.append(record(h, recommended, 0))
    lines.append(record(h, 16, 86400000))
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
# Records the reader refuses whole, each on its own line after the forged ones.
with open(out, "a") as f:
    for bad in ({"threads": 99999}, {"threads": 4294967304}, {"milliseconds": -5000},
                {"recorded_at": "not a time"}, {"kind": "not-a-boot-record"}):
        r = json.loads(record(known[60], 16, 100))
        r.update(bad)
        f.write(json.dumps(r) + "\n")
print(len(lines))
PY
}

# name_boots TEMPLATE OUT REC SHORT_HOST: boot records of the value with the most hosts in REC
# (`fleet recommend --json`), at its hosts' median time, under host names the host-name rule
# joins: web-17.example.com's report booting as web-17, as itself and as WEB-17.example.com.;
# SHORT_HOST's (a report under its short name) under two spellings of one FQDN; and twin-17,
# which the reports of twin-17.a.example and twin-17.b.example both begin with. Prints the value.
name_boots() {
    python3 -S - "$@" <<'PY'
import copy, json, sys
template, out, rec, short = sys.argv[1:5]
base = json.loads(open(template).readline())
value = max(json.load(open(rec))["boots"]["values"], key=lambda v: (v["hosts"], v["threads"]))
threads = value["threads"]
ms = round(value["ms_per_1000_pages"] * base["pool"]["pages"] / 1000)
names = ["web-17", "web-17.example.com", "WEB-17.example.com.", short + ".example.com",
         short.upper() + ".Example.COM.", "twin-17", "twin-17"]
with open(out, "w") as f:
    for i, host in enumerate(names):
        r = copy.deepcopy(base)
        r["host"], r["threads"], r["milliseconds"] = host, threads, ms
        r["boot_id"] = "%08x-0000-4000-8000-%012x" % (0x17, i)
        r["allocation_line"]["text"] = (
            "HugeTLB: allocation took %dms with hugepage_allocation_threads=%d" % (ms, threads))
        f.write(json.dumps(r) + "\n")
print(threads)
PY
}

# boot_counts REC THREADS: the value's hosts and boots, and its boots refused as ambiguous
# (hosts, boots), in `fleet recommend --json` REC.
boot_counts() {
    local values="[(v['hosts'], v['boots']) for v in d['boots']['values'] if v['threads'] == $2]"
    local refused="[(f['hosts'], f['boots']) for f in d['boots']['refused']"
    refused+=" if f['threads'] == $2 and f['why'] == 'ambiguous_host']"
    json_field "$1" "$values, $refused"
}

# answer_of DB SKU FILE: the SKU's exported cmdline, decision, value and status, one line each.
answer_of() {
    local db=$1 sku=$2 file=$3
    "$bin" fleet export --db "$db" --format cmdline --accept-warning low_confidence \
        >"$file" 2>"$work/hostile-export.err" || fail "export: $(cat "$work/hostile-export.err")"
    "$bin" fleet recommend --db "$db" --sku "$sku" --accept-warning low_confidence --json \
        >"$work/hostile-rec.json" 2>"$work/hostile-rec.err" || true
    json_field "$work/hostile-rec.json" \
        'd["decision"], d["hugepage_alloc_threads"], d["status"], d["boots"]["decided"] if d["boots"] else None' \
        >>"$file" || fail "recommend: $(cat "$work/hostile-rec.json" "$work/hostile-rec.err")"
}

# hostile_boots_suite DB [WRITER_URL]: WRITER_URL, on PostgreSQL, the boot writer role's
# connection to DB, which tries the forged rows raw as well.
hostile_boots_suite() {
    local db=$1 writer=${2:-} d=$work/hostile tools sku recommended forged
    tools=$(dirname "$bin")/tests
    "$tools/gen-fleet" --seed 31 --out "$d" --skus 1 --hosts-per-sku 1000 --outliers 0 \
        --fit-once 1 --boot-hosts-per-sku 60 2>"$work/gen.err" || fail "gen-fleet: $(cat "$work/gen.err")"
    sku=$(json_field "$d/truth.json" 'd["skus"][0]["key"]')
    rm "$d/truth.json"
    # Reports under FQDNs: web-17's, and two that the short name twin-17 begins with.
    local prefix=${sku%%/*}-0-host
    local h
    local -A fqdn=([997]=web-17.example.com [998]=twin-17.a.example [999]=twin-17.b.example)
    for h in "${!fqdn[@]}"; do
        rename_report "$d/$prefix$h.json" "$d/${fqdn[$h]}.json" "${fqdn[$h]}" &&
            rm "$d/$prefix$h.json" || fail "cannot rename $d/$prefix$h.json"
    done
    expect 0 "$bin" fleet ingest --db "$db" "$d"
    answer_of "$db" "$sku" "$work/hostile-before"
    recommended=$(json_field "$work/hostile-rec.json" 'd["hugepage_alloc_threads"]')
    grep -qx "$sku hugepage_alloc_threads=$recommended" "$work/hostile-before" ||
        fail "the generated SKU is not exported at its value: $(cat "$work/hostile-before")"
    [[ $recommended != 16 ]] || fail "the generated SKU's value is the one the forgeries favour"
    forged=$(forge_boots "$d/boots.jsonl" "$work/forged.jsonl" "$sku" "$recommended")
    expect 2 "$bin" fleet ingest --db "$db" --json "$work/forged.jsonl"
    [[ $(json_field "$out" 'd["refused_count"], d["boot_lines"][0]["added"]') == "(5, $forged)" ]] ||
        fail "forged records stored: $(head -c 600 "$out")"
    if [[ -n $writer ]]; then
        # The role has no right on the table: the same rows raw are refused whatever they hold.
        local sql="INSERT INTO boot_records (boot_key, host, sku_key, kernel_release, threads, milliseconds, line_present, recorded_at, record) SELECT 'forged-' || g, 'ghost-raw-' || g, '$sku', '6.15.3', 16, 1, 1, '2026-12-01T00:00:00Z', '{}' FROM generate_series(1, 1000) g"
        psql -X -q -t -A "$writer" -c "$sql" >"$work/writer.out" 2>&1 && fail "the writer role inserted raw rows"
        grep -q "permission denied" "$work/writer.out" || fail "raw insert: $(cat "$work/writer.out")"
    fi
    # Whoever writes the table cannot mark a ghost's boots as a reporting host's: the database's
    # triggers put the mark right (schema version 18).
    db_sql "$db" "UPDATE boot_records SET reported = 1 WHERE host LIKE 'ghost-%'" >/dev/null
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records WHERE host LIKE 'ghost-%'") -ge 300 &&
        $(db_sql "$db" "SELECT COUNT(*) FROM boot_records WHERE host LIKE 'ghost-%' AND reported = 1") == 0 ]] ||
        fail "ghosts' boots marked as reported: $(db_sql "$db" "SELECT COUNT(*) FROM boot_records WHERE reported = 1 AND host LIKE 'ghost-%'")"
    [[ $(db_sql "$db" "SELECT COUNT(*) FROM boot_records b WHERE reported = 0 AND EXISTS (SELECT 1 FROM hosts h JOIN runs r ON r.host_id = h.id WHERE h.hostname = b.host)") == 0 ]] ||
        fail "reporting hosts' boots not marked"
    answer_of "$db" "$sku" "$work/hostile-after"
    cmp -s "$work/hostile-before" "$work/hostile-after" ||
        fail "forged boots changed the answer: $(diff "$work/hostile-before" "$work/hostile-after")"
    # The answer says what it set aside: the refused hosts' boots are named as refused.
    [[ $(json_field "$work/hostile-rec.json" 'd["boots"]["refused_boots"] > 0') == True ]] ||
        fail "the refused boots are not counted: $(cat "$work/hostile-rec.json")"

    # One machine booting under its short name and its FQDNs in any case is one boot host, as is
    # a short-named report's host booting under an FQDN: two hosts more, five boots more. A short
    # name two reports' FQDNs begin with counts for nothing, and is said to be refused.
    local threads before after
    threads=$(name_boots "$d/boots.jsonl" "$work/names.jsonl" "$work/hostile-rec.json" "${prefix}996")
    before=$(boot_counts "$work/hostile-rec.json" "$threads")
    expect 0 "$bin" fleet ingest --db "$db" "$work/names.jsonl"
    answer_of "$db" "$sku" "$work/hostile-names"
    after=$(boot_counts "$work/hostile-rec.json" "$threads")
    python3 -S -c 'import sys; b, a = eval(sys.argv[1]), eval(sys.argv[2]); sys.exit(not (
        a[0][0] == (b[0][0][0] + 2, b[0][0][1] + 5) and a[1] == [(1, 2)] and b[1] == []))' \
        "$before" "$after" ||
        fail "boots under a machine's names: at $threads before $before, after $after (hosts +2, boots +5, and twin-17's 2 boots refused as ambiguous expected)"
}
