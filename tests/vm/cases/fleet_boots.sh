#!/usr/bin/env bash
# vmlab-alone: its guests run two at a time under the single-threaded emulator, and another case beside them slows their boots until the answer refuses them (tests/vm/README.md)
# Every boot teaches the fleet (docs/fleet.md "Boots"), end to end on real kernels and a real
# PostgreSQL: twelve guests of one SKU, six hosts each booted once at hugepage_alloc_threads=A
# and once at B (a canary plan's hosts boot both; docs/fleet.md "What counts as evidence"), record their boot through `hugetune verify --fleet-db` over the network
# into the host's server as the least-privilege role (fleet_db/sql/boot-writer-role.sql, its
# password in a libpq password file laid into the guest); each row must be the guest's own record
# of the kernel's own line. Then sweep reports of that SKU whose fit answers A are ingested, and
# `fleet recommend` must show the boots and take B, settled by them.
#
# The emulator's timings are noise, so the faster value is planted in the guests' clocks: every
# guest runs under QEMU's icount (lib/vm.bash vmlab_icount_args), its time the count of its
# instructions, 2^4 ns each at A and 2^2 ns at B. The same allocation's instructions then take a
# quarter of the guest time at B, and the kernel's own "allocation took" line, which verify
# reads, says so. This proves the flow, not the numbers: B is faster because its clock was made
# to run faster, not because of its threads. icount needs the single-threaded emulator, so these
# guests are emulated even when the run chose KVM. Now and then a boot logs more than its
# instructions' time, never less (tests/vm/README.md "Boots into the fleet database"): so B is
# the 1-thread value, where that was seen least, and the answer is each value's median over its
# hosts.
source "$(dirname "$0")/../lib/vm.bash"
vmlab_prepare
hugetune=${VMLAB_HUGETUNE:?VMLAB_HUGETUNE names the host hugetune binary}
repo=$vmlab_dir/../..
kernel_dir=$(dirname "$vmlab_kernel")
net_modules=(failover net_failover virtio_net)
for module in "${net_modules[@]}"; do
    [[ -s $kernel_dir/$module.ko ]] ||
        vmlab_skip "no $module.ko beside the kernel in $kernel_dir (cached before the lab fetched it; fetch-kernel.sh adds it when the archive is reachable)"
done
pg_bindir=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
[[ -x $pg_bindir/initdb && -x $pg_bindir/postgres ]] ||
    vmlab_skip "PostgreSQL's server is not installed (Debian package postgresql)"
command -v psql >/dev/null || vmlab_skip "psql is not installed (Debian package postgresql-client)"
[[ $(id -u) == 0 ]] || vmlab_skip "starting PostgreSQL as nobody needs root to switch to it"

# The values, each guest's clock, the pool: A is what the sweep reports below answer, B the
# value the boots must find faster.
value_a=2 value_b=1
shift_a=4 shift_b=2
pages=8
needed_hosts=5  # kMinBootHosts (model/fleet/boots.hpp): hosts a value needs before boots compare
# One host more than that: a boot that logs far more than its instructions' time (above) is
# refused as implausible, and then the value still has the hosts it needs. A run of five with one
# boot at 2 threads logged at 3,220 ms against 276 failed so
# (docs/measurements/ci-run-warm-2026-12-06-l.txt).
guests_per_value=$((needed_hosts + 1))

work=$VMLAB_WORK/fleet-boots
rm -rf "$work" && mkdir -p "$work"
pg=$work/pg
pg_pid=""
declare -a boot_jobs=()
fleet_boots_cleanup() {
    local pid
    for pid in "${boot_jobs[@]}"; do
        kill -TERM "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    vmlab_stop_guests
    if [[ -n $pg_pid ]]; then
        kill -INT "$pg_pid" 2>/dev/null  # PostgreSQL's fast shutdown
        wait "$pg_pid" 2>/dev/null
    fi
}
trap fleet_boots_cleanup EXIT
trap 'fleet_boots_cleanup; exit 130' INT
trap 'fleet_boots_cleanup; exit 143' TERM

# The server runs as nobody in a directory of its own; nobody may pass through the run's and the
# case's directories to reach it (x only: it lists neither).
chmod go+x "$VMLAB_WORK" "$work"
mkdir -m 700 "$pg"
chown 65534:65534 "$pg"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin "$@"; }
as_nobody "$pg_bindir/initdb" -D "$pg/data" -U hugetune --auth-local=trust --auth-host=reject \
    --no-sync -E UTF8 >"$work/initdb.log" 2>&1 || vmlab_skip "initdb failed: $(tail -n 1 "$work/initdb.log")"
# The owner only on the unix socket; the boot writer only over TCP with its password.
cat >"$pg/data/pg_hba.conf" <<'HBA'
local all hugetune trust
host all hugetune_boot 127.0.0.1/32 scram-sha-256
HBA
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# setpriv itself in the background, so that $! is the server's PID; its parent-death signal stops
# the server when this shell is killed by SIGKILL, which no trap sees (its own processes end when
# they see it gone).
setpriv --reuid=65534 --regid=65534 --clear-groups --pdeathsig KILL env -i PATH=/usr/bin:/bin "$pg_bindir/postgres" \
    -D "$pg/data" -k "$pg" -c listen_addresses=127.0.0.1 -c port="$port" -c fsync=off \
    >"$work/postgres.log" 2>&1 &
pg_pid=$!
owner_url="postgresql:///fleet?host=$pg&port=$port&user=hugetune"
sql() { psql -X -q -t -A -v ON_ERROR_STOP=1 "$owner_url" -c "$1"; }
for ((i = 0; i < 100; i++)); do
    psql -X -q -t -A "postgresql:///postgres?host=$pg&port=$port&user=hugetune" -c 'CREATE DATABASE fleet' \
        >/dev/null 2>&1 && break
    kill -0 "$pg_pid" 2>/dev/null || vmlab_fail "PostgreSQL did not start: $(tail -n 1 "$work/postgres.log")"
    sleep 0.1
done
((i < 100)) || vmlab_fail "PostgreSQL did not answer within 10 s: $(tail -n 1 "$work/postgres.log")"

# The schema, by the ingest of another SKU's report (which the answer below must leave alone),
# then the role as docs/fleet.md "The boot writer role" makes it, its password on psql's stdin.
"$hugetune" fleet ingest --db "$owner_url" "$repo/tests/fixtures/fleet/report-1.json" >"$work/schema.out" 2>&1 ||
    { cat "$work/schema.out" >&2; vmlab_fail "the first ingest (the schema) failed"; }
psql -X -q -v ON_ERROR_STOP=1 -f "$repo/fleet_db/sql/boot-writer-role.sql" "$owner_url" >/dev/null ||
    vmlab_fail "the boot writer role's SQL failed"
password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
psql -X -q -v ON_ERROR_STOP=1 "$owner_url" <<<"ALTER ROLE hugetune_boot PASSWORD '$password'" ||
    vmlab_fail "the role's password was not set"
printf '127.0.0.1:%s:fleet:hugetune_boot:%s\n' "$port" "$password" >"$work/pgpass"
chmod 600 "$work/pgpass"
writer_url="postgresql://hugetune_boot@127.0.0.1:$port/fleet"
# Through TCP the role gets in and reads nothing; the owner does not get in at all.
PGPASSFILE=$work/pgpass psql -X -q -t -A "$writer_url" -c 'SELECT COUNT(*) FROM boot_records' \
    >"$work/writer-select.out" 2>&1 && vmlab_fail "the boot writer role could read boot_records"
grep -q "permission denied" "$work/writer-select.out" ||
    vmlab_fail "the role's SELECT failed otherwise: $(cat "$work/writer-select.out")"
PGPASSFILE=$work/pgpass psql -X -q -t -A "postgresql://hugetune@127.0.0.1:$port/fleet" -c 'SELECT 1' \
    >"$work/owner-tcp.out" 2>&1 && vmlab_fail "the owner got in over TCP"
grep -q "no pg_hba.conf entry" "$work/owner-tcp.out" ||
    vmlab_fail "the owner over TCP failed otherwise: $(cat "$work/owner-tcp.out")"

# What every guest gets: the network card's modules, the URL (no password) and the password file.
input=$work/input/vmlab/input
mkdir -p "$input"
for module in "${net_modules[@]}"; do cp "$kernel_dir/$module.ko" "$input/"; done
# The connect timeout counts the guest's instructions (icount): a generous one, as a bound.
guest_url="postgresql://hugetune_boot@10.0.2.2:$port/fleet?connect_timeout=120"
echo "$guest_url" >"$input/fleet-db"
printf '10.0.2.2:%s:fleet:hugetune_boot:%s\n' "$port" "$password" >"$input/pgpass"
chmod 600 "$input/pgpass"  # libpq ignores a password file others may read

# fleet_boot NAME THREADS SHIFT HOST [vmlab.probe=1]: one guest, host name HOST.
fleet_boot() {
    vm_boot "fleet-$1" fleet-boot "hugepages=$pages hugepage_alloc_threads=$2 tsc=reliable vmlab.hostname=$4 ${5:-}" \
        --smp 2 --mem 512 --net --icount "$3" --input "$work/input" --timeout 180
}
# Two guests at a time, one of each value.
failed_boots=()
for ((i = 1; i <= guests_per_value; i++)); do
    probe=""
    ((i == 1)) && probe=vmlab.probe=1
    fleet_boot "a-$i" "$value_a" "$shift_a" "lab-$i" "$probe" &
    boot_jobs=($!)
    fleet_boot "b-$i" "$value_b" "$shift_b" "lab-$i" &
    boot_jobs+=($!)
    wait "${boot_jobs[0]}" || failed_boots+=("a-$i")
    wait "${boot_jobs[1]}" || failed_boots+=("b-$i")
    boot_jobs=()
done
((${#failed_boots[@]} == 0)) || vmlab_fail "guests did not finish: ${failed_boots[*]}"

# Each guest: verify stored its record (nothing spooled), the record is of the kernel's own line,
# and the database's row is that record.
declare -A ms_of=()
keys=()
for ((i = 1; i <= guests_per_value; i++)); do
    for side in a b; do
        name=fleet-$side-$i host=lab-$i threads=$value_a
        [[ $side == b ]] && threads=$value_b
        vm_expect_rc "$name" modules 0
        vm_expect_rc "$name" network 0
        [[ $(vm_section "$name" hostname) == "$host" ]] || vmlab_fail "$name: the host name is '$(vm_section "$name" hostname)'"
        vm_expect_rc "$name" verify 0
        vm_section "$name" verify | grep -qxF "sent 1 boot record, 0 stored before to $guest_url" ||
            vmlab_fail "$name: verify did not send its record: $(vm_section "$name" verify) $(vm_section "$name" verify.stderr)"
        [[ -z $(vm_section "$name" spool) ]] || vmlab_fail "$name: records wait in the spool: $(vm_section "$name" spool)"
        line=$(vm_section "$name" kernel-log)
        [[ $line =~ HugeTLB:\ allocation\ took\ ([0-9]+)ms\ with\ hugepage_allocation_threads=([0-9]+)$ ]] ||
            vmlab_fail "$name: no allocation line: $line"
        [[ ${BASH_REMATCH[2]} == "$threads" ]] || vmlab_fail "$name: the kernel logged ${BASH_REMATCH[2]} threads, booted with $threads"
        ms=${BASH_REMATCH[1]}
        ms_of[$name]=$ms
        record=$(vm_section "$name" boot-record)
        row=$(sql "SELECT host, threads, milliseconds, line_present, pool_pages, sku_key FROM boot_records
                   WHERE boot_id = '$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["boot_id"])' "$record")'")
        python3 - "$record" "$row" "$host" "$threads" "$ms" "$pages" <<'PY' || vmlab_fail "$name: the stored row is not the guest's record: $row"
import json, sys
record, row, host, threads, ms, pages = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], *map(int, sys.argv[4:])
assert record["host"] == host and record["threads"] == threads and record["milliseconds"] == ms, record
assert record["allocation_line"]["present"] is True and record["pool"]["pages"] == pages, record
assert record["sku_key"], record
assert row.split("|") == [host, str(threads), str(ms), "1", str(pages), record["sku_key"]], row
PY
        keys+=("${row##*|}")
    done
done
sql "SELECT host, threads, milliseconds, pool_pages, sku_key, boot_id FROM boot_records ORDER BY host" \
    >"$work/boot-records.txt"
mapfile -t distinct < <(printf '%s\n' "${keys[@]}" | sort -u)
((${#distinct[@]} == 1)) || vmlab_fail "the guests are of several SKUs: ${distinct[*]}"
sku=${distinct[0]}
[[ $(sql "SELECT COUNT(*) FROM boot_records") == $((2 * guests_per_value)) ]] ||
    vmlab_fail "boot_records holds $(sql "SELECT COUNT(*) FROM boot_records") rows, not $((2 * guests_per_value))"
echo "$((2 * guests_per_value)) boots of $sku stored as hugetune_boot: at $value_a (icount shift $shift_a): $(for ((i = 1; i <= guests_per_value; i++)); do printf '%s ' "${ms_of[fleet-a-$i]}"; done)ms; at $value_b (shift $shift_b): $(for ((i = 1; i <= guests_per_value; i++)); do printf '%s ' "${ms_of[fleet-b-$i]}"; done)ms"

# Sweep reports of that SKU: tests/fixtures/fleet/report-1.json (a guest of 1 node and 2 hardware
# threads) with the guest's own cpu and topology blocks (probe), the key's memory and
# init_on_alloc, and samples of a curve that halves the boot's work at 2 threads and gains
# nothing beyond (5 repetitions 1% apart, each host 1% from the next): with init_on_alloc on the
# fit takes grow at 1 thread and alloc minus zero above it (docs/kernel-facts.md "What each phase
# does under init_on_alloc"), so grow 1 ms and alloc minus zero 0.5 ms at 2 and 4 threads; it
# answers 2, A.
vm_section fleet-a-1 probe >"$work/probe.json"
mkdir -p "$work/reports"
python3 - "$repo/tests/fixtures/fleet/report-1.json" "$work/probe.json" "$sku" "$work/reports" \
    "$guests_per_value" <<'PY' || vmlab_fail "the sweep reports could not be made"
import copy, json, sys
src, probe_file, sku, out, hosts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
base, probe = json.load(open(src)), json.load(open(probe_file))
microarch, nodes, threads, gib, page_kb, ioa = sku.split("/")
assert probe["cpu"]["microarch"] == microarch, (probe["cpu"], sku)
ms_per_sample = {("alloc", 1): 10.0, ("alloc", 2): 2.5, ("alloc", 4): 2.5,
                 ("zero", 1): 4.0, ("zero", 2): 2.0, ("zero", 4): 2.0, ("grow", 1): 1.0}
for i in range(1, hosts + 1):
    d = copy.deepcopy(base)
    d["host"]["hostname"] = "lab-%d" % i
    d["cpu"], d["topology"] = probe["cpu"], probe["topology"]
    d["sku"].update({"microarch": microarch, "nodes": int(nodes[:-1]),
                     "hardware_threads_per_node": int(threads[:-1]), "memory_per_node_gib": int(gib[:-1]),
                     "page_size_kb": int(page_kb[:-1]), "init_on_alloc": ioa == "ioa1"})
    d["kernel"]["init_on_alloc"] = ioa == "ioa1"
    d["sweep"]["parameters"]["repetitions"] = 5
    for p in d["sweep"]["points"]:
        # Ten times the times above: the planted guest clocks make each boot 30 to 130 times
        # those, beyond the 128 a boot may lie from the curve (docs/fleet.md "What counts as
        # evidence"); the curve's shape, and so its answer, stays.
        ms = 10 * ms_per_sample[(p["phase"], p["threads_per_node"])] * (1 + 0.01 * i)
        s = [ms * f / 1000 for f in (0.98, 0.99, 1.0, 1.01, 1.02)]
        p.update({"samples_seconds": s, "median_seconds": s[2],
                  "spread": {"min_seconds": s[0], "max_seconds": s[-1]},
                  "thread_seconds": [[x] * p["total_threads"] for x in s],
                  "gib_per_second": p["pages_per_node"] * p["page_size_kb"] / 1048576 / s[2]})
    # The warnings these facts give (ingest judges them again): the guest's, the points past its
    # hardware threads, and the fixture's fit block's own, which the report keeps; not `noisy`,
    # whose spread is gone.
    d["warnings"] = [w for w in d["warnings"]
                     if w["code"] in ("vm", "oversubscribed", "alloc_only_unmeasurable")]
    json.dump(d, open("%s/lab-%d.json" % (out, i), "w"), indent=1)
PY
"$hugetune" fleet ingest --db "$owner_url" "$work/reports" >"$work/ingest.out" 2>&1 ||
    { cat "$work/ingest.out" >&2; vmlab_fail "the sweep reports were not ingested"; }
grep -q "^added $guests_per_value," "$work/ingest.out" || vmlab_fail "ingest: $(cat "$work/ingest.out")"

# The answer: the reports are measured in VMs as the guests are, so their vm warning is accepted.
"$hugetune" fleet recommend --db "$owner_url" --sku "$sku" --accept-warning vm --json \
    >"$work/recommend.json" 2>"$work/recommend.err" ||
    { cat "$work/recommend.err" >&2; vmlab_fail "fleet recommend failed"; }
python3 - "$work/recommend.json" "$value_a" "$value_b" "$guests_per_value" "$needed_hosts" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
a, b, n, m = map(int, sys.argv[2:])
boots = d["boots"]
assert boots is not None, d
# At most one boot refused, and only as implausible (a boot the emulator stretched).
assert boots["refused_boots"] <= 1, boots
assert all(f["why"] == "implausible" for f in boots["refused"]), boots["refused"]
assert boots["boots"] + boots["refused_boots"] == 2 * n and boots["other_boots"] == 0, boots
assert boots["hosts"] == n and boots["paired_hosts"] >= m, boots
values = {v["threads"]: v for v in boots["values"]}
assert sorted(values) == sorted([a, b]), boots["values"]
assert all(m <= values[t]["hosts"] == values[t]["boots"] <= n for t in (a, b)), boots["values"]
assert values[b]["ms_per_1000_pages"] < values[a]["ms_per_1000_pages"] / 1.02, boots["values"]
assert boots["decided"] == b, boots
assert d["status"] == "settled_by_boots", (d["status"], d["status_reason"])
assert d["hugepage_alloc_threads"] == b and d["kernel_cmdline"] == "hugepage_alloc_threads=%d" % b, d
assert "The sweeps answered hugepage_alloc_threads=%d (settled" % a in d["status_reason"], d["status_reason"]
PY
    vmlab_fail "the answer is not the boots' $value_b: $(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["status"], d["hugepage_alloc_threads"], d["status_reason"], json.dumps(d["boots"]))' "$work/recommend.json")"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("status: %s: %s" % (d["status"], d["status_reason"]))
print("boots: " + "; ".join("%d threads %.0f ms per 1,000 pages (%d hosts)" % (v["threads"], v["ms_per_1000_pages"], v["hosts"]) for v in d["boots"]["values"]))' \
    "$work/recommend.json"
