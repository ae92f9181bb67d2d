#!/usr/bin/env bash
# verify against fixture kernel logs: the real line format, the ratio to the report's
# prediction, the verification block written into the report, and each reason for a missing
# line (exit 1).
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"
logs=$fixtures/logs

cmdline=$work/cmdline
echo "BOOT_IMAGE=/vmlinuz-6.15.0 root=/dev/sda1 hugepagesz=2M hugepages=524288 hugepage_alloc_threads=32" >"$cmdline"
report=$work/report.json
cat >"$report" <<'JSON'
{"schema_version": 1,
 "recommendation": {"hugepage_alloc_threads": 32, "kernel_cmdline": "hugepage_alloc_threads=32",
                    "predicted_seconds": 0.65},
 "boot_pool": {"pages": 524288, "page_size_kb": 2048, "source": "cmdline"}}
JSON
chmod 640 "$report"

# A gathered tree for what verify reads besides a saved log: the ledger; and with the tree's
# own dev/kmsg, its release and boot id.
root=$work/root
mkdir -p "$root/proc/sys/kernel/random"
echo "6.15.0-hugetune" >"$root/proc/sys/kernel/osrelease"
echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60" >"$root/proc/sys/kernel/random/boot_id"

expect 0 "$bin" verify --root "$root" --log "$logs/dmesg-6.15-threads32.log" --cmdline "$cmdline" --report "$report"
stdout_has "boot allocation: 706 ms with 32 threads"
stdout_has "predicted: 650 ms for 524288 pages of 2048 kB, 650 ms for the 524288 pages booted; measured/predicted: 1.09"
stdout_has "expected 32, recommended by the report"
stdout_has "verified"
python3 -S - "$report" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
v = doc["verification"]
assert v["measured_ms"] == 706 and v["threads"] == 32, v
assert abs(v["predicted_ms"] - 650) < 1e-9 and abs(v["ratio"] - 706 / 650) < 1e-9, v
# A saved log's own release; no boot id, as the log does not say which boot it was.
assert v["kernel_release"] == "6.15.0-hugetune" and "boot_id" not in v, v
assert v["verified"] is True and v["problems"] == [], v
assert v["pool"] == {"pages": 524288, "page_size_kb": 2048, "init_on_alloc": True}, v
assert doc["schema_version"] == 1 and doc["recommendation"]["hugepage_alloc_threads"] == 32
PY
[[ $(stat -c %a "$report") == 640 ]] || fail "report mode not kept"

# The kmsg form and the other parameter spelling, without a report.
echo "root=/dev/sda1 hugepages=262144 hugepage_alloc_threads=16" >"$cmdline"
expect 0 "$bin" verify --root "$root" --log "$logs/kmsg-6.15-threads16.log" --cmdline "$cmdline"
stdout_has "boot allocation: 1210 ms with 16 threads"

# The ledger of an apply says which value to expect; a different one on /proc/cmdline fails.
cp -a "$fixtures/debian/." "$root/"
expect 0 "$bin" apply --value 24 --root "$root" --no-regenerate
expect 1 "$bin" verify --root "$root" --log "$logs/kmsg-6.15-threads16.log" --cmdline "$cmdline"
stderr_has "not the applied 24"
one_error_line
expect 0 "$bin" rollback --root "$root" --no-regenerate

# No line: the reason that applies, exit 1.
echo "BOOT_IMAGE=/vmlinuz-6.15.0 root=/dev/sda1 hugepagesz=2M hugepages=524288 hugepage_alloc_threads=32" >"$cmdline"
echo "6.12.9-amd64" >"$root/proc/sys/kernel/osrelease"
expect 1 "$bin" verify --root "$root" --log "$logs/dmesg-6.12.log" --cmdline "$cmdline"
stderr_has "kernel 6.12.9-amd64 is older than 6.15"
echo "6.15.0-hugetune" >"$root/proc/sys/kernel/osrelease"
expect 1 "$bin" verify --root "$root" --log "$logs/dmesg-rotated.log" --cmdline "$cmdline"
stderr_has "no longer reaches back to the start of the boot"
echo "root=/dev/sda1 hugepages=0:262144,1:262144 hugepage_alloc_threads=32" >"$cmdline"
expect 1 "$bin" verify --root "$root" --log "$logs/dmesg-rotated.log" --cmdline "$cmdline"
stderr_has "node-format hugepages="
echo "root=/dev/sda1 hugepage_alloc_threads=32" >"$cmdline"
expect 1 "$bin" verify --root "$root" --log "$logs/dmesg-rotated.log" --cmdline "$cmdline"
stderr_has "no boot-time huge page pool"
# The kernel's own rules for the parameter: '-' and '_' alike in its name (parameqn()), a leading
# '+' in its value (kstrtoull()). Each of these boots took 16 threads and verifies as such.
for spelled in "hugepage-alloc-threads=16" "hugepage_alloc_threads=+16" \
    "hugepage_alloc_threads=4 hugepage-alloc-threads=16"; do
    echo "root=/dev/sda1 hugepagesz=2M hugepages=262144 $spelled" >"$cmdline"
    expect 0 "$bin" verify --json --root "$root" --log "$logs/kmsg-6.15-threads16.log" --cmdline "$cmdline"
    python3 -S - "$work/out" "$spelled" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["verified"] is True and v["threads"] == 16 and v["problems"] == [], (sys.argv[2], v)
PY
done
# --json: one object on stdout, verified or not; the exit code still tells.
echo "root=/dev/sda1 hugepagesz=2M hugepages=262144 hugepage_alloc_threads=16" >"$cmdline"
expect 0 "$bin" verify --json --root "$root" --log "$logs/kmsg-6.15-threads16.log" --cmdline "$cmdline"
python3 -S - "$work/out" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["verified"] is True and v["measured_ms"] == 1210 and v["threads"] == 16, v
assert v["cmdline_value"] == "16" and v["problems"] == [], v
PY
echo "root=/dev/sda1 hugepage_alloc_threads=32" >"$cmdline"
expect 1 "$bin" verify --json --root "$root" --log "$logs/dmesg-rotated.log" --cmdline "$cmdline"
python3 -S - "$work/out" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["verified"] is False and v["measured_ms"] is None, v
assert [p["code"] for p in v["problems"]] == ["no_boot_pool"], v
assert "no boot-time huge page pool" in v["problems"][0]["message"], v
PY
one_error_line
# The default log source under --root is its dev/kmsg.
mkdir -p "$root/dev"
cp "$logs/dmesg-6.15-threads32.log" "$root/dev/kmsg"
echo "root=/dev/sda1 hugepages=524288 hugepage_alloc_threads=32" >"$root/proc/cmdline"
expect 0 "$bin" verify --json --root "$root"
python3 -S - "$work/out" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["measured_ms"] == 706 and v["threads"] == 32, v
assert v["kernel_release"] == "6.15.0-hugetune" and v["boot_id"].startswith("3f1e6c2a"), v
PY

# Bad input: exit 2, one line.
printf '{"schema_version": 1, "recommendation": {"hugepage_alloc_threads": 32, "kernel_cmdline": "hugepage_alloc_threads=32"}}' >"$report"
expect 2 "$bin" verify --root "$root" --report "$report"
stderr_has "recommendation.predicted_seconds: missing"
one_error_line
expect 2 "$bin" verify --log "$work/absent.log"
stderr_has "--log: $work/absent.log is not a readable file"
# Under --root the log is the tree's own dev/kmsg: without one, verify says so, not that
# /dev/kmsg needs root or journalctl journald.
bare=$work/bare-root
echo "root=/dev/sda1 hugepagesz=2M hugepages=262144 hugepage_alloc_threads=16" >"$cmdline"
cp -a "$root" "$bare"
rm -f "$bare/dev/kmsg"
printf 'MemTotal:       16384000 kB\nHugepagesize:       2048 kB\n' >"$bare/proc/meminfo"
expect_error 1 "no kernel log could be read (under --root the log is the tree's $bare/dev/kmsg, which is missing or empty)" \
    "$bin" verify --root "$bare" --cmdline "$cmdline"
if grep -q "journald" "$err"; then fail "verify under --root blames journald"; fi

# A line inside another message is not the kernel's; of two lines, verify says which it took.
echo "root=/dev/sda1 hugepagesz=2M hugepages=262144 hugepage_alloc_threads=32" >"$cmdline"
printf '%s\n' "[    0.000000] Linux version 6.15.0-hugetune (builder@example) #1 SMP" \
    "[    0.000000] Command line: $(cat "$cmdline")" \
    "[    3.100000] usb 1-1: Product: HugeTLB: allocation took 1ms with hugepage_allocation_threads=32" \
    "[    4.000000] HugeTLB: allocation took 0ms with hugepage_allocation_threads=32" \
    "[    4.100000] HugeTLB: allocation took 650ms with hugepage_allocation_threads=32" \
    "[   12.000000] Linux version 9.9" >"$work/two-lines.log"
expect 0 "$bin" verify --log "$work/two-lines.log" --cmdline "$cmdline"
stdout_has "boot allocation: 650 ms with 32 threads"
stdout_has "allocation line taken: the only one above 0 ms of 2 allocation lines; the others time empty pools"

echo "verify: ok"
