#!/usr/bin/env bash
# verify does not call a boot verified when the kernel's own lines rule it out: the pool fell
# short of the request (the kernel's "allocating N ... failed" line), the logged time is below
# what zeroing the pool takes, or measured/predicted lies outside what a boot of the predicted
# pool can give. The block it writes says so and reads back; a stored block that says verified
# against its own numbers is refused by the report's reader, the fleet's included.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/verify.bash"
logs=$src/tests/fixtures/boot/logs

root=$work/root
verify_root "$root"
report=$work/report.json

# write_report THREADS PREDICTED_SECONDS POOL_PAGES
write_report() { write_verify_report "$report" "$1" "$2" "$3" 2048 true 128; }

# json_check PYTHON_EXPRESSION: holds for v, the JSON object in FILE (default: stdout).
json_check() {
    python3 -S - "${2:-$out}" "$1" <<'PY' || fail "JSON does not satisfy: $1"
import json, sys
v = json.load(open(sys.argv[1]))
v = v.get("verification", v)
codes = [p["code"] for p in v["problems"]]
text = " ".join(p["message"] for p in v["problems"])
ok = eval(sys.argv[2])
if not ok:
    print(json.dumps(v, indent=1), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
# block_validates: the report's verification block, put into a whole report (a fleet fixture),
# validates against the shipped schema, its problem codes included.
block_validates() {
    python3 -S - "$report" "$src/tests/fixtures/fleet/report-1.json" "$work/whole.json" <<'PY'
import json, sys
whole = json.load(open(sys.argv[2]))
whole["verification"] = json.load(open(sys.argv[1]))["verification"]
json.dump(whole, open(sys.argv[3], "w"))
PY
    validate_schema report.schema.json "$work/whole.json"
}
not_verified_on_stdout() { ! grep -qx verified "$out" || fail "stdout says verified: $(cat "$out")"; }

# A shortfall: the kernel got 385296 of the 385920 pages asked for. Not verified, the pages
# asked and got named, the ratio taken for the pages booted.
write_report 32 5.2 385920
expect 1 "$bin" verify --root "$root" --log "$logs/dmesg-6.15-shortfall.log" --report "$report"
one_error_line
stderr_has "(pool_shortfall)"
stderr_has "the kernel allocated only 385296 of the 385920 pages of 2 MiB asked for"
stdout_has "boot allocation: 5210 ms with 32 threads for 385296 pages of 2048 kB"
not_verified_on_stdout
json_check 'v["verified"] is False and codes == ["pool_shortfall"]' "$report"
json_check 'v["pool"]["pages"] == 385296 and abs(v["ratio"] - 5210 / (5200 * 385296 / 385920)) < 1e-9' "$report"
expect 0 "$bin" cmdline --report "$report"
block_validates
# --json and the Prometheus textfile say the same.
write_report 32 5.2 385920
expect 1 "$bin" verify --json --root "$root" --log "$logs/dmesg-6.15-shortfall.log" --prometheus "$work/boot.prom"
json_check 'v["verified"] is False and codes == ["pool_shortfall"] and "385296" in text and "385920" in text'
grep -q '^hugetune_boot_verified{sku="",kernel="6.15.0-hugetune"} 0$' "$work/boot.prom" ||
    fail "textfile: $(cat "$work/boot.prom")"
grep -q '^hugetune_boot_verify_problem{sku="",kernel="6.15.0-hugetune",code="pool_shortfall"} 1$' "$work/boot.prom" ||
    fail "textfile lacks the problem: $(cat "$work/boot.prom")"

# 0 ms for 754 GiB zeroed as allocated: below what any memory can be zeroed at, and a ratio of
# 0 to the prediction. Without a report the time alone.
write_report 32 5.2 385920
expect 1 "$bin" verify --root "$root" --log "$logs/dmesg-6.15-zero-ms.log" --report "$report"
one_error_line
stderr_has "(implausible_time)"
stderr_has "(implausible_ratio)"
stdout_has "measured/predicted: 0"
not_verified_on_stdout
json_check 'v["verified"] is False and codes == ["implausible_time", "implausible_ratio"]' "$report"
json_check 'v["measured_ms"] == 0 and v["ratio"] == 0' "$report"
# The block verify wrote reads back: the report still works for every command.
expect 0 "$bin" cmdline --report "$report"
block_validates
expect 1 "$bin" verify --json --root "$root" --log "$logs/dmesg-6.15-zero-ms.log"
json_check 'codes == ["implausible_time"] and "754 GiB" in text and "at 4 TiB/s for each of 2" in text'

# A ratio past 128: the log is not of the boot predicted for, or the prediction is broken.
write_report 32 0.005 524288
expect 1 "$bin" verify --json --root "$root" --log "$logs/dmesg-6.15-threads32.log" --report "$report"
json_check 'codes == ["implausible_ratio"] and v["ratio"] > 128'
# Far off, yet within what a boot can give: verified (the fleet judges how far).
write_report 32 0.065 524288
expect 0 "$bin" verify --json --root "$root" --log "$logs/dmesg-6.15-threads32.log" --report "$report"
json_check 'v["verified"] is True and codes == [] and 10 < v["ratio"] < 11'

# A stored block that says verified against its own numbers is refused, one line, exit 2.
# forge FIELD=VALUE...: the report's verification block with those fields set.
forge() {
    python3 -S - "$report" "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for kv in sys.argv[2:]:
    key, value = kv.split("=", 1)
    doc["verification"][key] = json.loads(value)
json.dump(doc, open(sys.argv[1], "w"))
PY
}
write_report 32 5.2 385920
expect 1 "$bin" verify --root "$root" --log "$logs/dmesg-6.15-zero-ms.log" --report "$report"
forge verified=true 'problems=[]'
expect_error 2 "verification.ratio: measured/predicted is 0, outside the 0.00781 to 128" \
    "$bin" cmdline --report "$report"
forge 'ratio=null' 'pool_predicted_ms=null' 'threads=2'
expect_error 2 "verification.measured_ms: the kernel logged 0 ms for 385920 pages" \
    "$bin" cmdline --report "$report"
forge 'measured_ms=null'
expect_error 2 "verification.measured_ms: missing, but verified is true" \
    "$bin" cmdline --report "$report"

# The fleet reads blocks with the same reader: a forged one is refused at ingest.
python3 -S - "$src/tests/fixtures/fleet/report-1.json" "$work/fleet-report.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
threads = doc["recommendation"]["hugepage_alloc_threads"]
doc["verification"] = {"verified": True, "measured_ms": 1, "threads": threads,
                       "pool_predicted_ms": 1000.0, "ratio": 0.001, "problems": []}
json.dump(doc, open(sys.argv[2], "w"))
PY
expect 2 "$bin" fleet ingest --db "$work/fleet.db" "$work/fleet-report.json"
grep -q "verification.ratio: measured/predicted is 0.001" "$err" || {
    cat "$err" >&2
    fail "fleet ingest did not refuse the forged block"
}
echo "verify_plausible: ok"
