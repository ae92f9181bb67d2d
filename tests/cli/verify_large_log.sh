#!/usr/bin/env bash
# verify reads a kernel log as a stream and keeps only the start of its last boot (README "Input
# size"): a 48 MB log of several boots verifies within a memory limit the whole file would break,
# a note says what was left out, a boot whose allocation line lies past the bound says so, and
# a file without newlines costs no more memory than a short one. The same reader serves
# --root's dev/kmsg.
source "$(dirname "$0")/lib/harness.bash"
require_command python3 "it writes the large logs"

# gen_log FILE MEGABYTES [--late]: three boots, the last of 6.15.7 (tests/support/).
gen_log() { python3 "$src/tests/support/gen-kernel-log.py" "$@"; }

# limited COMMAND...: COMMAND under a 128 MiB address-space limit, which reading a 48 MB log
# whole breaks; AddressSanitizer reserves far more address space than that, so its build runs
# without the limit. Such a binary calls __asan_init (the runtime itself, and its name
# "AddressSanitizer", lie in libasan.so, not in the binary).
if grep -q -a -m1 -e __asan_init -e AddressSanitizer "$bin"; then
    echo "note: a sanitizer build: the memory limit is left out"
    limited() { "$@"; }
else
    limited() { (ulimit -v 131072 && "$@"); }
fi

log=$work/big.log
gen_log "$log" 48
limited expect 0 "$bin" verify --json --log "$log"
python3 -S - "$out" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["verified"] is True and v["measured_ms"] == 706, v
assert v["kernel_release"] == "6.15.7", v
PY
[[ $(grep -c . "$err") -eq 1 ]] || fail "expected one note on stderr: $(cat "$err")"
stderr_has "hugetune: note: --log $log: only the first 100000 messages of its last boot were read"
stderr_has "were left out"

# The same file as a gathered tree's dev/kmsg, read by the same reader.
root=$work/root
mkdir -p "$root/dev" "$root/proc/sys/kernel/random"
mv "$log" "$root/dev/kmsg"
echo "root=/dev/sda1 hugepagesz=2M hugepages=524288 hugepage_alloc_threads=32" >"$root/proc/cmdline"
echo "6.15.7" >"$root/proc/sys/kernel/osrelease"
limited expect 0 "$bin" verify --root "$root"
stdout_has "boot allocation: 706 ms with 32 threads"
stderr_has "hugetune: note: the kernel log: only the first 100000 messages"
rm -f "$root/dev/kmsg"

# The last boot's allocation line past the bound: not found, and why.
gen_log "$log" 20 --late
limited expect 1 "$bin" verify --log "$log"
one_error_line_after_note() {
    [[ $(grep -c '^hugetune: error: ' "$err") -eq 1 && $(grep -c '^hugetune: note: ' "$err") -eq 1 ]] ||
        fail "expected one note and one error line: $(cat "$err")"
}
one_error_line_after_note
stderr_has "(no_allocation_line)"
stderr_has "all that is read of it, hold no allocation line"

# 20 MB without a newline: one line, cut at 8 KiB.
head -c 20000000 /dev/zero | tr '\0' 'x' >"$log"
limited expect 2 "$bin" verify --log "$log"
one_error_line_after_note
stderr_has "1 lines longer than 8 KiB, which no kernel message is, were cut there"
stderr_has "does not show the boot's command line"
echo "verify_large_log: ok"
