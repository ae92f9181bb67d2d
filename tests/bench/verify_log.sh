#!/usr/bin/env bash
# `make bench`, verify's log reader: `hugetune verify --log` of a generated kernel log of
# VERIFY_LOG_MB megabytes (default 500; five boots, tests/support/gen-kernel-log.py), its wall
# time and peak memory by /usr/bin/time -v (target under 5 s and 100 MB: the reader streams and
# keeps the start of the last boot only, README "Input size"). Prints the figures; asserts no
# time. Without GNU time it says so and measures nothing.
#     usage: tests/bench/verify_log.sh HUGETUNE SOURCE_DIR
source "$(dirname "$0")/../cli/lib/harness.bash"
if [[ ! -x /usr/bin/time ]]; then
    echo "verify log bench: SKIPPED: /usr/bin/time is not installed (Debian: time); nothing measured"
    exit 0
fi
mb=${VERIFY_LOG_MB:-500}
python3 "$src/tests/support/gen-kernel-log.py" "$work/kernel.log" "$mb" --boots 5
/usr/bin/time -v "$bin" verify --log "$work/kernel.log" >"$work/out" 2>"$work/time" ||
    fail "verify failed: $(cat "$work/out" "$work/time")"
seconds=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time")
peak_kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$work/time")
echo "verify --log of $mb MB (5 boots): $seconds wall, $((peak_kb / 1024)) MB peak (target under 5 s and 100 MB)"
