#!/usr/bin/env bash
# `fleet ingest` holds one report at a time (docs/fleet.md "Ingest"): its peak memory is set by
# the largest report, not by how many the batch holds. A batch of 4 reports of a few MB each
# and one of 16 such reports are ingested into new SQLite files; the larger batch may take no
# more than one report's file size beyond the smaller one's peak, where holding the batch
# would take 12 more reports, each several times its file size once parsed. A file larger than
# any report is refused without being read whole.
source "$(dirname "$0")/lib/harness.bash"
source "$(dirname "$0")/lib/fleet.bash"
require_command python3 "the test writes the reports and reads the kernel's memory count with it"

make_large_report "$fleet_fixture" "$work/large.json" 150000
report_kb=$(($(stat -c %s "$work/large.json") / 1024))
((report_kb > 2048)) || fail "the generated report is only $report_kb kB"
python3 - "$work/large.json" "$work" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
for n in (4, 16):
    os.makedirs(f"{sys.argv[2]}/batch{n}")
    for i in range(n):
        doc["host"]["hostname"] = f"large-{i}"
        json.dump(doc, open(f"{sys.argv[2]}/batch{n}/large-{i}.json", "w"), indent=1)
PY

peak4=$(peak_rss_kb "$work/ingest4.out" "$bin" fleet ingest --db "$work/four.db" "$work/batch4") ||
    fail "ingest of 4: $(cat "$work/ingest4.out")"
peak16=$(peak_rss_kb "$work/ingest16.out" "$bin" fleet ingest --db "$work/sixteen.db" "$work/batch16") ||
    fail "ingest of 16: $(cat "$work/ingest16.out")"
grep -q "added 16," "$work/ingest16.out" || fail "not all 16 stored: $(cat "$work/ingest16.out")"
# AddressSanitizer keeps freed blocks in quarantine (256 MB by default), so its resident memory
# grows with what was freed, not with what is held: the plain build checks the bound.
if ldd "$bin" 2>/dev/null | grep -q libasan; then
    skip "the binary is built with AddressSanitizer, whose quarantine holds freed memory; both ingests ran, the memory bound is the plain build's test"
fi
echo "peak resident memory: 4 reports of $report_kb kB: $peak4 kB; 16 of them: $peak16 kB"
((peak16 <= peak4 + report_kb)) ||
    fail "16 reports took $peak16 kB, 4 took $peak4 kB: memory grows with the batch"

# A file larger than any report is refused by its size after reading a little past the bound,
# never held whole (200 MB of zeros would take 200 MB and more).
truncate -s 200M "$work/huge.json"
peak_huge=$(peak_rss_kb "$work/huge.out" "$bin" fleet ingest --db "$work/huge.db" "$work/huge.json") &&
    fail "a 200 MB file was accepted: $(cat "$work/huge.out")"
grep -q "refused $work/huge.json: larger than 64 MiB" "$work/huge.out" ||
    fail "the 200 MB file was not refused by its size: $(cat "$work/huge.out")"
echo "peak resident memory refusing a 200 MB file: $peak_huge kB"
((peak_huge < 120 * 1024)) || fail "refusing a 200 MB file took $peak_huge kB"
