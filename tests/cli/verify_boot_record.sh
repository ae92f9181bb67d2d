#!/usr/bin/env bash
# The boot record verify makes on every boot (docs/fleet.md "Boots"): printed by --json as its
# member boot_record, written by --boot-record whatever the verdict, with or without a ledger,
# and a boot without the kernel's allocation line recorded with the reason.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/boot-standins.bash"
source "$(dirname "$0")/lib/verify.bash"
logs=$fixtures/logs

# A tree gathered from a four-node Skylake: the probe reads its SKU key; its dev/kmsg holds the
# boot's allocation line.
root=$work/skylake
cp -a "$src/tests/fixtures/skylake-4node" "$root"
mkdir -p "$root/proc/sys/kernel/random"
echo "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60" >"$root/proc/sys/kernel/random/boot_id"

# No ledger, no report: --json prints the record beside the verification's members.
expect 0 "$bin" verify --json --root "$root"
python3 -S - "$work/out" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["verified"] is True and v["measured_ms"] == 16012, v
b = v["boot_record"]
assert b["kind"] == "hugetune-boot-record" and b["schema_version"] == 2, b
assert b["virtualization"] == "none", b
assert b["host"] == "skylake-4node" and b["sku_key"] == "skylake-sp/4n/36t/384g/2048k/ioa0", b
assert b["boot_id"] == "3f1e6c2a-8d4b-4c5e-9a7f-1b2c3d4e5f60", b
assert b["kernel_release"] == "6.15.0-hugetune-fixture", b
assert b["milliseconds"] == 16012 and b["threads"] == 32, b
assert b["pool"] == {"pages": 524288, "page_size_kb": 2048}, b
assert b["init_on_alloc"] is False and b["hvo"] is not None, b
assert b["allocation_line"]["present"] is True and b["allocation_line"]["absent_reason"] is None, b
assert b["expected_alloc_threads"] is None, b
assert b["recorded_at"].endswith("Z"), b
PY
python3 -S -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["boot_record"], open(sys.argv[2], "w"))' \
    "$work/out" "$work/printed.json"
validate_schema boot-record.schema.json "$work/printed.json"

# --boot-record keeps the same record in a file, written atomically; the summary is unchanged.
expect 0 "$bin" verify --root "$root" --boot-record "$work/boot.json"
stdout_has "boot allocation: 16012 ms with 32 threads"
stdout_has "kept the boot record in $work/boot.json"
validate_schema boot-record.schema.json "$work/boot.json"
python3 -S - "$work/boot.json" "$work/printed.json" <<'PY'
import json, sys
written, printed = (json.load(open(p)) for p in sys.argv[1:])
written.pop("recorded_at"); printed.pop("recorded_at")
assert written == printed, (written, printed)
PY

# With a ledger: the value apply wrote is the one expected; a boot with another value is not
# verified (exit 1), and its record is kept all the same.
cp -a "$fixtures/debian/." "$root/"
expect 0 "$bin" apply --value 24 --root "$root" --no-regenerate
expect 1 "$bin" verify --root "$root" --boot-record "$work/boot.json"
stderr_has "not the applied 24"
one_error_line
python3 -S - "$work/boot.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
assert b["expected_alloc_threads"] == 24 and b["threads"] == 32, b
assert b["allocation_line"]["present"] is True, b
PY
expect 0 "$bin" rollback --root "$root" --no-regenerate

# With a report and a saved log: the report's value is the one expected; a saved log has no
# boot id, and its own release counts.
report=$work/report.json
write_verify_report "$report" 32 0.65 524288 2048 false 64
echo "root=/dev/sda1 hugepagesz=2M hugepages=524288 hugepage_alloc_threads=32" >"$work/cmdline"
expect 0 "$bin" verify --json --root "$root" --log "$logs/dmesg-6.15-threads32.log" \
    --cmdline "$work/cmdline" --report "$report" --boot-record "$work/boot.json"
python3 -S - "$work/boot.json" "$work/out" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
assert b["expected_alloc_threads"] == 32 and b["milliseconds"] == 706, b
assert b["boot_id"] is None and b["kernel_release"] == "6.15.0-hugetune", b
assert b["init_on_alloc"] is True and b["hvo"] is None, b
printed = json.load(open(sys.argv[2]))
assert printed["verified"] is True and printed["boot_record"]["milliseconds"] == 706, printed
PY

# No line is a record too: present false, the reason, no numbers. A tree without its /sys gives
# no SKU key, and a saved log no boot id.
bare=$work/bare
mkdir -p "$bare/proc/sys/kernel"
echo "6.15.0-hugetune" >"$bare/proc/sys/kernel/osrelease"
echo "Web-17.Example.COM." >"$bare/proc/sys/kernel/hostname"
cmdline=$work/cmdline
for case in "hugepages=0:262144,1:262144 hugepage_alloc_threads=32|dmesg-rotated.log|node_format_hugepages" \
    "hugepagesz=1G hugepages=64 hugepage_alloc_threads=32|dmesg-rotated.log|gigantic_only" \
    "hugepages=524288 hugepage_alloc_threads=32|dmesg-rotated.log|log_truncated" \
    "hugepages=524288 hugepage_alloc_threads=32|dmesg-6.12.log|kernel_too_old"; do
    IFS="|" read -r args log code <<<"$case"
    echo "root=/dev/sda1 $args" >"$cmdline"
    expect 1 "$bin" verify --root "$bare" --log "$logs/$log" --cmdline "$cmdline" --boot-record "$work/absent.json"
    one_error_line
    validate_schema boot-record.schema.json "$work/absent.json"
    python3 -S - "$work/absent.json" "$code" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
line = b["allocation_line"]
assert line["present"] is False and line["text"] is None, b
assert line["absent_reason"]["code"] == sys.argv[2] and line["absent_reason"]["message"], b
assert b["milliseconds"] is None and b["threads"] is None and b["pool"] is None, b
assert b["host"] == "web-17.example.com" and b["sku_key"] is None and b["boot_id"] is None, b
PY
done

# Bad input: exit 2, one line naming the option.
expect 2 "$bin" verify --root "$root" --boot-record "$work/no-such-dir/boot.json"
stderr_has "--boot-record"
one_error_line
